import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Ajv } from 'ajv';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import { FAST_YES, simulatorEnv } from './apply-fixtures.js';
import { runCli } from './run-cli.js';

/**
 * The review loop in a real headless Chromium (#19.3): reject a job with a note and approve others in
 * the report (cards, lightbox keys), reload (decisions kept), export the decisions file (it validates
 * against schemas/review-decisions.schema.json), hand it to `apply --replace-from` (exactly the
 * rejected job is created again), and open the next report: the rejected result beside the new one,
 * with the note, and the new attempt undecided. Screenshots go to test-artifacts/.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));
const SCHEMA = fileURLToPath(new URL('../../schemas/review-decisions.schema.json', import.meta.url));
const TIME_SCALE = 0.005;
const NOTE = 'The cup is blurry and the logo is cut off';

interface DomNode {
  textContent: string | null;
  getAttribute(name: string): string | null;
}

describe.skipIf(!HAVE_CHROMIUM && process.env.CI !== 'true')(
  'reviewing a run in the report (Chromium)',
  () => {
    let simulator: Simulator;
    let browser: Browser | undefined;
    let page: Page;
    const consoleErrors: string[] = [];
    let dir = '';
    let manifest = '';
    let reportFile = '';
    let env: Record<string, string> = {};
    let exported = '';
    let nextApply = '';

    beforeAll(async () => {
      if (!HAVE_CHROMIUM)
        throw new Error(`No Chromium at ${CHROMIUM}: install Debian's chromium or set CHROMIUM_PATH.`);
      simulator = await startSimulator({ timeScale: TIME_SCALE });
      dir = await mkdtemp(join(tmpdir(), 'runner-review-'));
      manifest = join(dir, 'review.yaml');
      await writeFile(
        manifest,
        `version: 1
name: review
defaults: { kind: image, model: chatgpt-image-sangtao }
jobs:
  - id: "ad-{{ product }}-{{ style }}"
    matrix:
      product: [latte, mocha]
      style: [watercolor, film-photo]
    prompt: A {{ style }} advertisement of a {{ product }} on a wooden table in soft morning light [[one-image]]
  - id: pair
    prompt: Two views of a ceramic espresso cup on a marble counter by a sunny window [[two-images]]
`,
      );
      env = simulatorEnv(simulator);
      const first = await runCli(
        ['apply', manifest, '--state-dir', join(dir, 'state'), '--output', join(dir, 'out'), ...FAST_YES],
        {
          env,
          timeoutMs: 60_000,
        },
      );
      expect(first.code, first.stderr).toBe(0);
      expect(simulator.stats().jobsCreated).toBe(5);
      reportFile = join(dir, 'out', 'report.html');
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
      page = await browser.newPage({ viewport: { width: 1400, height: 1000 }, acceptDownloads: true });
      page.on('console', (message) => {
        if (message.type() === 'error') consoleErrors.push(message.text());
      });
      page.on('pageerror', (error) => consoleErrors.push(error.message));
      await page.goto(pathToFileURL(reportFile).href);
      await page.waitForSelector('body[data-ready="true"]');
      await mkdir(ARTIFACTS, { recursive: true });
    }, 90_000);

    afterAll(async () => {
      await browser?.close();
      await simulator?.close();
    });

    const pressed = (id: string, file: number, decision: string) =>
      page.getAttribute(
        `#gallery [data-id="${id}"] .review-bar[data-review-file="${file}"] button[data-decision="${decision}"]`,
        'aria-pressed',
      );
    const visibleIds = () =>
      page.$$eval('#gallery .card:not([hidden])', (cards: DomNode[]) =>
        cards.map((card) => card.getAttribute('data-id')),
      );

    it('rejects a job with a note and approves others from the cards and the lightbox keys', async () => {
      expect(await page.textContent('#review-tally')).toBe('0 rejected, 0 approved, 5 to review');
      const card = page.locator('#gallery [data-id="ad-latte-watercolor"]');
      await card.locator('.review-bar[data-review-file="0"] button[data-decision="rejected"]').click();
      await card.locator('.review-bar[data-review-file="0"] .review-note-toggle').click();
      await card.locator('textarea[data-review-file="0"]').fill(NOTE);
      await card.locator('textarea[data-review-file="0"]').press('Tab');
      await page.locator('#gallery [data-id="ad-mocha-watercolor"] button[data-decision="approved"]').click();
      // The lightbox: A approves the result shown; for a job with two results, the result, not the job.
      await page.click('#gallery [data-id="ad-mocha-film-photo"] .thumb a');
      await page.waitForSelector('#lightbox[open]');
      await page.keyboard.press('a');
      expect(
        await page.getAttribute(
          '.lb-review .review-bar[data-review-file="0"] button[data-decision="approved"]',
          'aria-pressed',
        ),
      ).toBe('true');
      await page.keyboard.press('Escape');
      await page.click('#gallery [data-id="pair"] .thumb a[data-file="1"]');
      await page.waitForSelector('#lightbox[open]');
      await page.keyboard.press('r');
      await page.keyboard.press('n');
      await page.keyboard.type('second view is cropped');
      await page.screenshot({ path: join(ARTIFACTS, 'report-review-lightbox.png') });
      await page.click('.lb-bar button[aria-label="Close (Esc)"]');
      expect(await pressed('pair', 2, 'rejected')).toBe('true');
      expect(await pressed('pair', 0, 'rejected')).toBe('false');
      expect(await pressed('ad-latte-watercolor', 0, 'rejected')).toBe('true');
      expect(await page.textContent('#review-tally')).toBe('2 rejected, 2 approved, 1 to review');
      expect(await page.getAttribute('#gallery [data-id="pair"]', 'data-verdict')).toBe('rejected');
    });

    it('filters by decision, in the URL hash too', async () => {
      await page.selectOption('#filter-review', 'rejected');
      expect(await visibleIds()).toEqual(['ad-latte-watercolor', 'pair']);
      expect(await page.evaluate('location.hash')).toContain('review=rejected');
      expect(await page.textContent('#filter-review option[value="approved"]')).toBe('approved (2)');
      await page.selectOption('#filter-review', 'to-review');
      expect(await visibleIds()).toEqual(['ad-latte-film-photo']);
      await page.selectOption('#filter-review', '');
      expect(await visibleIds()).toHaveLength(5);
    });

    it('decides in the grid too (its ✓/✗ come with the pointer, A/R on the focused tile), and the gallery card follows', async () => {
      await page.selectOption('#view', 'grid');
      const cell = page.locator('#grid [data-id="ad-latte-film-photo"]');
      // Image-only cells: no decision buttons until the pointer or the focus comes to a tile.
      expect(await page.$$eval('#grid .review', (nodes) => nodes.length)).toBe(0);
      await cell.hover();
      await cell.locator('button[data-decision="approved"]').click();
      expect(await cell.getAttribute('data-verdict')).toBe('approved');
      expect(await pressed('ad-latte-film-photo', 0, 'approved')).toBe('true');
      await cell.locator('button[data-decision="approved"]').click();
      expect(await pressed('ad-latte-film-photo', 0, 'approved')).toBe('false');
      // The keyboard: R rejects the focused tile's job, R again takes it back.
      await cell.locator('.open').focus();
      await page.keyboard.press('r');
      expect(await cell.getAttribute('data-verdict')).toBe('rejected');
      expect(await cell.locator('button[data-decision="rejected"]').getAttribute('aria-pressed')).toBe(
        'true',
      );
      expect(await page.textContent('#review-tally')).toBe('3 rejected, 2 approved, 0 to review');
      await page.keyboard.press('r');
      expect(await cell.getAttribute('data-verdict')).toBe('to-review');
      await page.selectOption('#view', 'gallery');
      expect(await page.textContent('#review-tally')).toBe('2 rejected, 2 approved, 1 to review');
    });

    it('A, R and N act on the focused result of a card, N in the lightbox', async () => {
      await page.locator('#gallery [data-id="pair"] .open[data-file="1"]').focus();
      // Its second result was rejected in the lightbox: A approves it instead, R rejects it again.
      await page.keyboard.press('a');
      expect(await pressed('pair', 2, 'approved')).toBe('true');
      expect(await pressed('pair', 0, 'approved')).toBe('false');
      await page.keyboard.press('r');
      expect(await pressed('pair', 2, 'rejected')).toBe('true');
      await page.keyboard.press('n');
      await page.waitForSelector('#lightbox[open]');
      expect(await page.evaluate('document.activeElement.getAttribute("data-review-file")')).toBe('2');
      expect(await page.evaluate('document.activeElement.value')).toBe('second view is cropped');
      await page.keyboard.press('Escape');
      // The dialog's close event, which takes `open=` out of the URL hash, comes as a task of its own:
      // a reload before it reopens the lightbox from the hash, and its modal then blocks the export
      // button below (the clean CI's 30 s timeout in the next test).
      const lightboxAndHash =
        "(document.querySelector('#lightbox[open]') ? 'lightbox open, ' : '') + location.hash";
      await expect.poll(() => page.evaluate(lightboxAndHash), { timeout: 10_000 }).not.toMatch(/open/);
      expect(await page.textContent('#review-tally')).toBe('2 rejected, 2 approved, 1 to review');
    });

    it('keeps the decisions and notes across a reload', async () => {
      await page.reload();
      await page.waitForSelector('body[data-ready="true"]');
      expect(await page.textContent('#review-tally')).toBe('2 rejected, 2 approved, 1 to review');
      expect(await pressed('ad-latte-watercolor', 0, 'rejected')).toBe('true');
      expect(
        await page.inputValue('#gallery [data-id="ad-latte-watercolor"] textarea[data-review-file="0"]'),
      ).toBe(NOTE);
      expect(await page.inputValue('#gallery [data-id="pair"] textarea[data-review-file="2"]')).toBe(
        'second view is cropped',
      );
    });

    it('exports a decisions file that validates against its schema', async () => {
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-decisions')]);
      expect(download.suggestedFilename()).toBe('review-default-decisions.json');
      // What to run next, with this run's state and output folders (#33.3): plan, then apply.
      const next = await page.$$eval('#next-step code', (nodes: DomNode[]) =>
        nodes.map((node) => node.textContent),
      );
      const flags = `--state-dir ${join(dir, 'state')} --output ${join(dir, 'out')}`;
      expect(next).toEqual([
        `runner plan ${manifest} ${flags} --replace-from review-default-decisions.json`,
        `runner apply ${manifest} ${flags} --replace-from review-default-decisions.json`,
      ]);
      expect(await page.textContent('#next-step')).toContain('re-generating the 2 rejected jobs');
      nextApply = next[1] ?? '';
      exported = join(dir, 'decisions.json');
      await download.saveAs(exported);
      const decisions = JSON.parse(await readFile(exported, 'utf8')) as {
        decisions: { jobId: string; file?: number; decision: string; note?: string; attempt: number }[];
      };
      const validate = new Ajv({ strict: true, allErrors: true }).compile(
        JSON.parse(await readFile(SCHEMA, 'utf8')) as object,
      );
      expect(validate(decisions), JSON.stringify(validate.errors)).toBe(true);
      expect(decisions).toMatchObject({
        kind: 'runner-review-decisions',
        schemaVersion: 1,
        pipeline: 'review',
        runId: 'default',
      });
      const brief = decisions.decisions.map(({ jobId, file, decision, note, attempt }) => ({
        jobId,
        file,
        decision,
        note,
        attempt,
      }));
      expect(brief).toEqual([
        { jobId: 'ad-latte-watercolor', file: undefined, decision: 'rejected', note: NOTE, attempt: 1 },
        { jobId: 'ad-mocha-watercolor', file: undefined, decision: 'approved', note: undefined, attempt: 1 },
        { jobId: 'ad-mocha-film-photo', file: undefined, decision: 'approved', note: undefined, attempt: 1 },
        { jobId: 'pair', file: 2, decision: 'rejected', note: 'second view is cropped', attempt: 1 },
      ]);
      expect(consoleErrors).toEqual([]);
    });

    it('re-generates exactly the rejected jobs from the exported file, and the next report shows old beside new', async () => {
      // The command the page showed, with the file where it was saved.
      const words = nextApply.split(' ');
      expect(words.slice(0, 2)).toEqual(['runner', 'apply']);
      expect(words.at(-1)).toBe('review-default-decisions.json');
      const again = await runCli([...words.slice(1, -1), exported, ...FAST_YES], {
        env,
        timeoutMs: 60_000,
      });
      expect(again.code, again.stderr).toBe(0);
      expect(simulator.stats().jobsCreated).toBe(7);
      await page.reload();
      await page.waitForSelector('body[data-ready="true"]');
      const replaced = page.locator('#gallery [data-id="ad-latte-watercolor"] .replaced-attempt.rejected');
      expect(await replaced.locator('.replaced-caption').textContent()).toBe(
        'attempt 1 · rejected → replaced by attempt 2',
      );
      expect(await replaced.locator('.replaced-note').textContent()).toBe(NOTE);
      // The rejected image is kept (moved aside) and still shows.
      expect(
        await replaced
          .locator('img')
          .evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
      ).toBeGreaterThan(0);
      expect(await page.locator('#gallery [data-id="pair"] .replaced-note').textContent()).toBe(
        'result 2: second view is cropped',
      );
      // The new attempts start undecided; the approvals of the jobs not re-generated stay.
      expect(await pressed('ad-latte-watercolor', 0, 'rejected')).toBe('false');
      expect(await page.textContent('#review-tally')).toBe('0 rejected, 2 approved, 3 to review');
      await page.click('#gallery [data-id="ad-latte-watercolor"] .thumb a');
      await page.waitForSelector('#lightbox[open]');
      expect(await page.textContent('.lb-details .replaced-caption')).toBe(
        'attempt 1 · rejected → replaced by attempt 2',
      );
      await page.screenshot({ path: join(ARTIFACTS, 'report-review-replaced-lightbox.png') });
      await page.keyboard.press('Escape');
      // The grid's cell is the new image alone, marked as replacing a rejected attempt.
      await page.selectOption('#view', 'grid');
      const cell = page.locator('#grid [data-id="ad-latte-watercolor"]');
      expect(await cell.getAttribute('data-replaced')).toBe('rejected');
      expect(await cell.getAttribute('title')).toContain(
        'attempt 1 rejected, replaced by attempt 2 (both in the lightbox)',
      );
      await cell.hover();
      await page.locator('#grid').screenshot({ path: join(ARTIFACTS, 'report-review-grid.png') });
      await page.selectOption('#view', 'gallery');
      await page
        .locator('#gallery [data-id="ad-latte-watercolor"]')
        .screenshot({ path: join(ARTIFACTS, 'report-review-card.png') });
      await page.screenshot({ path: join(ARTIFACTS, 'report-review.png') });
      expect(consoleErrors).toEqual([]);
    }, 90_000);

    it('imports a decisions file, leaving out decisions made on an attempt since replaced', async () => {
      await page.evaluate('localStorage.clear()');
      await page.reload();
      await page.waitForSelector('body[data-ready="true"]');
      expect(await page.textContent('#review-tally')).toBe('0 rejected, 0 approved, 5 to review');
      await page.setInputFiles('#import-decisions-file', exported);
      await page.waitForSelector('#review-message:not(:empty)');
      expect(await page.textContent('#review-message')).toBe(
        '2 decision(s) imported (0 rejected, 2 approved); 2 skipped: 2 made on an earlier attempt than the job’s latest: ad-latte-watercolor (attempt 1, now 2), pair (attempt 1, now 2).',
      );
      expect(await page.textContent('#review-tally')).toBe('0 rejected, 2 approved, 3 to review');
      expect(await pressed('ad-mocha-watercolor', 0, 'approved')).toBe('true');
      expect(consoleErrors).toEqual([]);
    });
  },
);
