import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderReportHtml } from '../../src/report/render-html.js';
import type { ReportData } from '../../src/report/report-data.js';

/**
 * When the run was made, in the report's header, as the person reviewing the night's images reads it:
 * their own local time (the browser's zone, set here per context so no assertion depends on the
 * machine's zone), the exact ISO instant kept in `<time datetime>` and its tooltip.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const MADE = '2026-11-27T07:00:17.393Z';

describe('the report header’s time in a real Chromium', () => {
  let browser: Browser | undefined;
  let dir = '';
  let file = '';

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `No Chromium at ${CHROMIUM}: install Debian's \`chromium\` package (.ci/run does) or set CHROMIUM_PATH.`,
      );
    }
    dir = await mkdtemp(join(tmpdir(), 'runner-report-time-'));
    file = join(dir, 'report.html');
    const data: ReportData = {
      pipeline: 'night',
      runId: 'r',
      manifestFile: 'night.yaml',
      generatedAt: MADE,
      axes: [],
      entries: [],
    };
    await writeFile(file, renderReportHtml(data, dir));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    if (dir !== '') await rm(dir, { recursive: true, force: true });
  });

  /** The header's `made` time as a reader in `timezoneId` sees it: its text, tooltip and datetime. */
  async function madeIn(timezoneId: string): Promise<{ text: string; title: string; datetime: string }> {
    const context = await browser!.newContext({ locale: 'en-GB', timezoneId });
    try {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(pathToFileURL(file).href);
      await page.waitForSelector('body[data-ready="true"]');
      expect(errors).toEqual([]);
      return {
        text: (await page.textContent('header .meta time#made')) ?? '',
        title: (await page.getAttribute('#made', 'title')) ?? '',
        datetime: (await page.getAttribute('#made', 'datetime')) ?? '',
      };
    } finally {
      await context.close();
    }
  }

  it('shows the reader’s local time with its zone, the ISO instant kept in datetime and title', async () => {
    expect(await madeIn('Asia/Tokyo')).toEqual({
      text: '27 Nov 2026, 16:00 GMT+9',
      title: MADE,
      datetime: MADE,
    });
    expect((await madeIn('America/New_York')).text).toBe('27 Nov 2026, 02:00 GMT-5');
    expect((await madeIn('UTC')).text).toBe('27 Nov 2026, 07:00 UTC');
  });
});
