import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import axe from 'axe-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderReportHtml } from '../../src/report/render-html.js';
import type { ReportData, ReportEntry } from '../../src/report/report-data.js';
import { renderPng } from '../../src/simulator/media.js';

/**
 * The morning review as users found it (issue #33, points 1 to 4), in a real headless Chromium on
 * pages rendered from made-up run data (no simulator): what needs attention comes first with what to
 * run, the grid counts what it leaves out. Screenshots go to test-artifacts/.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));

interface DomNode {
  textContent: string | null;
  getAttribute(name: string): string | null;
}

const COMMANDS = {
  plan: "runner plan night.yaml --run 2026-11-26 --state-dir 'my state'",
  apply: "runner apply night.yaml --run 2026-11-26 --state-dir 'my state'",
  downloadOnly: "runner apply night.yaml --run 2026-11-26 --state-dir 'my state' --download-only",
};
const RETRY = `${COMMANDS.apply} --retry-failed`;

function job(id: string, matrix: ReportEntry['matrix'], files: ReportEntry['files'] = []): ReportEntry {
  return {
    id,
    kind: 'image',
    model: 'chatgpt-image-sangtao',
    prompt: `A latte for ${id}`,
    params: {},
    matrix,
    status: 'done',
    attempts: 1,
    credits: 4,
    files,
  };
}

/** A circle of `RED` on a white picture of `width` × `height`: its drawn box tells the drawn ratio. */
function circleImage(width: number, height: number): Promise<Buffer> {
  const r = Math.round(Math.min(width, height) * 0.4);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#fff"/><circle cx="${width / 2}" cy="${height / 2}" r="${r}" fill="#f00"/></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/** The bounding box of the red pixels of a PNG screenshot (width / height is the circle's drawn ratio). */
async function redBox(png: Buffer): Promise<{ width: number; height: number; ratio: number }> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let [left, top, right, bottom] = [info.width, info.height, -1, -1];
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      const at = (y * info.width + x) * 3;
      if (data[at]! > 200 && data[at + 1]! < 90 && data[at + 2]! < 90) {
        left = Math.min(left, x);
        right = Math.max(right, x);
        top = Math.min(top, y);
        bottom = Math.max(bottom, y);
      }
    }
  }
  const width = right - left + 1;
  const height = bottom - top + 1;
  return { width, height, ratio: height > 0 ? width / height : 0 };
}

describe.skipIf(!HAVE_CHROMIUM && process.env.CI !== 'true')('the morning review (#33) in Chromium', () => {
  let browser: Browser | undefined;
  let dir = '';

  beforeAll(async () => {
    if (!HAVE_CHROMIUM)
      throw new Error(`No Chromium at ${CHROMIUM}: install Debian's chromium or set CHROMIUM_PATH.`);
    dir = await mkdtemp(join(tmpdir(), 'runner-morning-'));
    await mkdir(ARTIFACTS, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** Writes the page of `entries` and opens it; page errors are collected in `errors`. */
  async function open(
    name: string,
    entries: ReportEntry[],
    axes: string[],
    errors: string[],
  ): Promise<{ page: Page; file: string }> {
    const data: ReportData = {
      pipeline: 'night',
      runId: '2026-11-26',
      manifestFile: 'night.yaml',
      generatedAt: new Date(0).toISOString(),
      axes,
      commands: COMMANDS,
      entries,
    };
    const file = join(dir, `${name}.html`);
    await writeFile(file, renderReportHtml(data, dir));
    const context = await browser!.newContext({ viewport: { width: 1300, height: 1000 }, timezoneId: 'UTC' });
    const page = await context.newPage();
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector('body[data-ready="true"]');
    return { page, file };
  }

  const galleryIds = (page: Page) =>
    page.$$eval('#gallery .card', (cards: DomNode[]) => cards.map((card) => card.getAttribute('data-id')));

  it('#33.4: what needs attention comes first, with its reason and the command that retries it; the grid counts what it leaves out', async () => {
    const png = join(dir, 'a.png');
    await writeFile(png, renderPng({ label: 'a', prompt: 'a', aspectRatio: '4:3' }));
    const image = (id: string) => [
      { index: 1, url: `https://r/${id}.png`, path: png, mediaType: 'image' as const },
    ];
    const entries: ReportEntry[] = [
      job('ad-latte-watercolor', { product: 'latte', style: 'watercolor' }, image('a')),
      job('ad-mocha-watercolor', { product: 'mocha', style: 'watercolor' }, image('b')),
      job('ad-latte-film', { product: 'latte', style: 'film' }, image('c')),
      job('ad-mocha-film', { product: 'mocha', style: 'film' }, image('d')),
      job('never', {}),
      // A result recorded as saved but not in this machine's output (#30.2).
      job('elsewhere', { product: 'mocha', style: 'film' }, [
        { index: 1, url: 'https://r/e.png', missing: 'saved on machine b at 08:00', mediaType: 'image' },
      ]),
      {
        ...job('busy', {}),
        status: 'deferred',
        credits: 0,
        failureKind: 'QUOTA_EXHAUSTED',
        notBefore: '2026-11-27T12:00:00.000Z',
        advice: 'The service is busy: retry after a few hours. A later apply retries it.',
      },
      {
        ...job('timed-out', {}),
        status: 'failed',
        credits: 0,
        failureKind: 'GENERATION_TIMEOUT',
        error: 'gave up after 3 polls',
        advice: `The generation timed out. \`${RETRY}\` re-sends it.`,
      },
    ];
    entries[4]!.status = 'pending';
    entries[4]!.attempts = 0;
    const errors: string[] = [];
    const { page } = await open('attention', entries, ['product', 'style'], errors);

    // First the failed job, then the deferred one, then the result missing here; the rest in order.
    expect(await galleryIds(page)).toEqual([
      'timed-out',
      'busy',
      'elsewhere',
      'ad-latte-watercolor',
      'ad-mocha-watercolor',
      'ad-latte-film',
      'ad-mocha-film',
      'never',
    ]);
    expect(await page.textContent('#attention')).toBe(
      'Needs attention: 1 failed, 1 deferred, 1 not on this machine (first in the gallery, with what to run)',
    );
    // The reason, and the command as code with a Copy button that copies exactly it.
    const failed = page.locator('#gallery [data-id="timed-out"]');
    expect(await failed.locator('.failure').textContent()).toBe('GENERATION_TIMEOUT: gave up after 3 polls');
    expect(await failed.locator('.advice code').textContent()).toBe(RETRY);
    const missing = page.locator('#gallery [data-id="elsewhere"]');
    expect(await missing.locator('.advice code').textContent()).toBe(COMMANDS.downloadOnly);
    expect(await missing.textContent()).toContain('saved on machine b at 08:00');
    await page.evaluate(
      "navigator.clipboard.writeText = (text) => { document.body.setAttribute('data-copied', text); return Promise.resolve(); }",
    );
    await failed.locator('.advice button').click();
    expect(await page.getAttribute('body', 'data-copied')).toBe(RETRY);
    expect(await failed.locator('.advice button').textContent()).toBe('Copied');
    await page.screenshot({ path: join(ARTIFACTS, 'report-attention.png') });

    // The grid lays out 5 of the 8 jobs; the header and a note above it say so, naming the others.
    await page.selectOption('#view', 'grid');
    expect(await page.textContent('#shown')).toBe('5 of 8 in the grid · 3 not in it');
    expect(await page.textContent('#grid .note.outside')).toBe(
      '3 of the 8 shown jobs are not in the grid: no value for product or style (never, busy, timed-out; the gallery shows them).',
    );
    expect(await page.$$('#grid .card')).toHaveLength(5);
    await page.selectOption('#view', 'gallery');
    expect(await page.textContent('#shown')).toBe('8 of 8 shown');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('#33.3: decisions follow the run to its report in another folder; an import says what it applied and skipped; the next command with a copy button', async () => {
    const png = join(dir, 'a.png');
    await writeFile(png, renderPng({ label: 'a', prompt: 'a', aspectRatio: '4:3' }));
    const reviewed = (id: string, attempt: number): ReportEntry => ({
      ...job(id, {}, [{ index: 1, url: `https://r/${id}.png`, path: png, mediaType: 'image' }]),
      attempt,
      payloadHash: `hash-${id}-${attempt}`,
    });
    const entries = [
      reviewed('a', 1),
      reviewed('b', 2),
      reviewed('c', 1),
      { ...job('waiting', {}), status: 'pending' as const },
    ];
    const errors: string[] = [];
    const { page } = await open('review', entries, [], errors);
    await page.click('#gallery [data-id="a"] .review-rejected');
    expect(await page.textContent('#review-tally')).toBe('1 rejected, 0 approved, 2 to review');

    // The same run's report written to another folder (a CI artifact, another machine's copy).
    const elsewhere = join(dir, 'artifact');
    await mkdir(elsewhere, { recursive: true });
    const other = await page.context().newPage();
    other.on('pageerror', (error) => errors.push(error.message));
    await writeFile(join(elsewhere, 'report.html'), await readFile(join(dir, 'review.html')));
    await other.goto(pathToFileURL(join(elsewhere, 'report.html')).href);
    await other.waitForSelector('body[data-ready="true"]');
    expect(await other.textContent('#review-tally')).toBe('1 rejected, 0 approved, 2 to review');
    expect(await other.getAttribute('#gallery [data-id="a"] .review-rejected', 'aria-pressed')).toBe('true');

    // An import names what it applied and, by reason, what it skipped.
    const file = join(dir, 'colleague decisions.json');
    const decision = (jobId: unknown, decision: string, attempt: number, payloadHash: string) => ({
      jobId,
      decision,
      attempt,
      payloadHash,
      decidedAt: '2026-11-26T08:00:00.000Z',
    });
    await writeFile(
      file,
      JSON.stringify({
        kind: 'runner-review-decisions',
        schemaVersion: 1,
        pipeline: 'night',
        runId: '2026-11-26',
        exportedAt: '2026-11-26T08:00:00.000Z',
        report: { generatedAt: '2026-11-26T07:00:00.000Z', manifestFile: 'night.yaml' },
        decisions: [
          decision('c', 'rejected', 1, 'hash-c-1'),
          decision('a', 'approved', 1, 'hash-a-1'),
          decision('b', 'rejected', 1, 'hash-b-1'),
          decision('c', 'approved', 1, 'hash-of-another-state'),
          decision('ghost', 'rejected', 1, 'x'),
          decision('waiting', 'rejected', 1, 'x'),
          decision(7, 'rejected', 1, 'x'),
        ],
      }),
    );
    await other.setInputFiles('#import-decisions-file', file);
    await other.waitForSelector('#review-message:not(:empty)');
    expect(await other.textContent('#review-message')).toBe(
      '2 decision(s) imported (1 rejected, 1 approved); 5 skipped: 1 made on an earlier attempt than the job’s latest: b (attempt 1, now 2); 1 made on another state’s job (its payload differs): c; 1 of jobs this report does not have: ghost; 1 of jobs with nothing to review: waiting (pending); 1 not decisions (no job id, or neither approved nor rejected): #7.',
    );
    // The next step names the imported file, quoted for the shell, after this run's own commands.
    expect(
      await other.$$eval('#next-step code', (nodes: DomNode[]) => nodes.map((node) => node.textContent)),
    ).toEqual([
      `${COMMANDS.plan} --replace-from 'colleague decisions.json'`,
      `${COMMANDS.apply} --replace-from 'colleague decisions.json'`,
    ]);
    await other.evaluate(
      "navigator.clipboard.writeText = (text) => { document.body.setAttribute('data-copied', text); return Promise.resolve(); }",
    );
    await other.locator('#next-step button').nth(1).click();
    expect(await other.getAttribute('body', 'data-copied')).toBe(
      `${COMMANDS.apply} --replace-from 'colleague decisions.json'`,
    );
    await other.screenshot({ path: join(ARTIFACTS, 'report-next-step.png') });
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('#33.1: every view shows each result at its own aspect ratio, letterboxed (16:9, 4:3, 1:1, 9:16)', async () => {
    const shapes = [
      { ratio: '16:9', width: 320, height: 180 },
      { ratio: '4:3', width: 320, height: 240 },
      { ratio: '1:1', width: 256, height: 256 },
      { ratio: '9:16', width: 180, height: 320 },
    ];
    const entries: ReportEntry[] = [];
    for (const shape of shapes) {
      const id = `circle-${shape.ratio.replace(':', 'x')}`;
      const path = join(dir, `${id}.png`);
      await writeFile(path, await circleImage(shape.width, shape.height));
      entries.push(
        job(id, { ratio: shape.ratio, set: 'circles' }, [
          { index: 1, url: `https://r/${id}.png`, path, mediaType: 'image' },
        ]),
      );
    }
    const errors: string[] = [];
    const { page } = await open('shapes', entries, ['set', 'ratio'], errors);
    const drawn = (root: string) => `document.querySelectorAll('${root} canvas[data-drawn]').length === 4`;
    const ratios = async (root: string) => {
      const found: Record<string, number> = {};
      for (const entry of entries) {
        const shot = await page.locator(`${root} [data-id="${entry.id}"] .thumb`).screenshot();
        found[entry.id] = Math.round((await redBox(shot)).ratio * 100) / 100;
      }
      return found;
    };
    const round = (ratios: Record<string, number>) =>
      Object.fromEntries(Object.entries(ratios).map(([id, ratio]) => [id, Math.abs(ratio - 1) <= 0.08]));
    const allRound = Object.fromEntries(entries.map((entry) => [entry.id, true]));

    await waitFor(page, drawn('#gallery'));
    const gallery = await ratios('#gallery');
    await page.screenshot({ path: join(ARTIFACTS, 'report-shapes-gallery.png') });
    expect(round(gallery), JSON.stringify(gallery)).toEqual(allRound);

    await page.selectOption('#view', 'grid');
    for (const size of [64, 160, 320]) {
      await page.fill('#grid-size', String(size));
      await page.dispatchEvent('#grid-size', 'change');
      await waitFor(page, drawn('#grid'));
      const grid = await ratios('#grid');
      await page.locator('#grid').screenshot({ path: join(ARTIFACTS, `report-shapes-grid-${size}.png`) });
      expect(round(grid), `${size}: ${JSON.stringify(grid)}`).toEqual(allRound);
    }
    await page.selectOption('#view', 'gallery');

    // The lightbox: the file itself, full size.
    for (const entry of entries) {
      await page.click(`#gallery [data-id="${entry.id}"] .thumb a`);
      await waitFor(page, "document.querySelector('#lightbox .lb-stage img')?.complete === true");
      const box = await redBox(await page.locator('#lightbox .lb-stage').screenshot());
      expect(Math.abs(box.ratio - 1), `${entry.id}: ${JSON.stringify(box)}`).toBeLessThanOrEqual(0.08);
      await page.keyboard.press('Escape');
      await waitFor(page, "!location.hash.includes('open=')");
    }

    // Print: the cards as the printed page lays them out.
    await page.emulateMedia({ media: 'print' });
    await waitFor(page, drawn('#gallery'));
    const printed = await ratios('#gallery');
    expect(round(printed), JSON.stringify(printed)).toEqual(allRound);
    await page.emulateMedia({ media: 'screen' });
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('#33.2: text has enough contrast (axe-core) in the gallery, the grid and the lightbox with a note shown, light and dark', async () => {
    const png = join(dir, 'a.png');
    await writeFile(png, renderPng({ label: 'a', prompt: 'a', aspectRatio: '4:3' }));
    const file = (id: string) => [
      { index: 1, url: `https://r/${id}.png`, path: png, mediaType: 'image' as const },
    ];
    const entries: ReportEntry[] = [
      {
        ...job('ad-latte-watercolor', { product: 'latte', style: 'watercolor' }, file('new')),
        attempt: 2,
        payloadHash: 'h2',
        attempts: 2,
        replaced: [
          {
            attempt: 1,
            replacedBy: 2,
            rejected: true,
            note: 'The cup is blurry and the logo is cut off',
            files: file('old'),
          },
        ],
      },
      {
        ...job('ad-mocha-watercolor', { product: 'mocha', style: 'watercolor' }, file('b')),
        attempt: 1,
        payloadHash: 'h1',
      },
      job('elsewhere', { product: 'mocha', style: 'film' }, [
        { index: 1, url: 'https://r/e.png', missing: 'saved on machine b at 08:00', mediaType: 'image' },
      ]),
      {
        ...job('busy', { product: 'latte', style: 'film' }),
        status: 'deferred',
        failureKind: 'QUOTA_EXHAUSTED',
        notBefore: '2026-11-27T12:00:00.000Z',
        advice: 'The service is busy: retry after a few hours.',
      },
      {
        ...job('timed-out', {}),
        status: 'failed',
        failureKind: 'GENERATION_TIMEOUT',
        error: 'gave up after 3 polls',
        advice: `The generation timed out. \`${RETRY}\` re-sends it.`,
      },
    ];
    for (const colorScheme of ['light', 'dark'] as const) {
      const errors: string[] = [];
      const { page } = await open(`contrast-${colorScheme}`, entries, ['product', 'style'], errors);
      await page.emulateMedia({ colorScheme });
      await page.click('#gallery [data-id="ad-mocha-watercolor"] .review-rejected');
      expect(await contrastProblems(page), `${colorScheme} gallery`).toEqual([]);
      await page.selectOption('#view', 'grid');
      await page.hover('#grid [data-id="ad-latte-watercolor"]');
      expect(await contrastProblems(page), `${colorScheme} grid`).toEqual([]);
      await page.selectOption('#view', 'gallery');
      await page.click('#gallery [data-id="ad-latte-watercolor"] .thumb a');
      await page.waitForSelector('#lightbox .replaced-note');
      await page.screenshot({ path: join(ARTIFACTS, `report-contrast-lightbox-${colorScheme}.png`) });
      expect(await contrastProblems(page), `${colorScheme} lightbox`).toEqual([]);
      expect(errors).toEqual([]);
      await page.context().close();
    }
  });
});

/** Contrast problems axe-core finds in the page as it is now: `selector: summary` per element. */
async function contrastProblems(page: Page): Promise<string[]> {
  if (!(await page.evaluate("typeof window.axe === 'object'"))) await page.evaluate(axe.source);
  return page.evaluate<string[]>(
    "axe.run(document, { runOnly: { type: 'rule', values: ['color-contrast'] } }).then((result) => result.violations.flatMap((rule) => rule.nodes.map((node) => node.target.join(' ') + ': ' + node.any.map((check) => check.message).join(' '))))",
  );
}

/** Polls an expression in the page until it is truthy (the page's CSP refuses waitForFunction's). */
async function waitFor(page: Page, expression: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await page.evaluate(expression))) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${expression}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
