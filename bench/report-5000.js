/**
 * Benchmark: what `apply` adds at the end of a run of 5,000 done jobs (what `runner report` does too):
 * replay the journal, join it with the jobs, render the HTML report, the results index (JSON and
 * CSV) and JUnit, and write them. The journal's records have the real writer's shapes (intent,
 * created, completed, downloaded per job). Then the page in headless Chromium (Debian's `chromium`,
 * or CHROMIUM_PATH; skipped when there is none or BENCH_REPORT_BROWSER=0), each result a 256 px
 * placeholder PNG on disk: time to a built page, a filter, the grid. Reported only, never enforced.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { buildReportData } from '../dist/report/report-data.js';
import { renderReportHtml } from '../dist/report/render-html.js';
import { renderJunit } from '../dist/report/render-junit.js';
import { buildResultsIndex, renderResultsCsv } from '../dist/report/results-index.js';
import { writeReportFiles } from '../dist/report/write-report-files.js';
import { replayJournalFile } from '../dist/state/backends/folder/replay-run-journal.js';
import { emitResult, median, note, round, timeIt } from './measure.js';

const JOBS = Number(process.env.BENCH_REPORT_JOBS ?? 5000);
const PRODUCTS = 50;

const dir = await mkdtemp(join(tmpdir(), 'runner-bench-report-'));
try {
  const jobs = [];
  const lines = [];
  let at = Date.UTC(2026, 10, 23);
  for (let index = 0; index < JOBS; index++) {
    const product = `product-${index % PRODUCTS}`;
    const style = `style-${Math.floor(index / PRODUCTS)}`;
    const id = `ad-${product}-${style}`;
    jobs.push({
      id,
      kind: 'image',
      model: 'chatgpt-image-sangtao',
      prompt: `A ${style} advertisement of a ${product} on a wooden table in soft morning light`,
      params: { format: 'png', resolution: '1K', aspectRatio: '16:9' },
      matrixValues: { product, style },
    });
    const jobId = `job_${String(index).padStart(5, '0')}_abcdef0123`;
    const url = `https://results.example/${jobId}/1.png`;
    lines.push(
      {
        type: 'intent',
        at: at++,
        id,
        attempt: 1,
        idempotencyKey: 'k'.repeat(64),
        payloadHash: 'h'.repeat(64),
      },
      { type: 'created', at: at++, id, attempt: 1, jobId, creditCost: 4, chargeSource: 'Credit' },
      {
        type: 'completed',
        at: at++,
        id,
        attempt: 1,
        resultUrls: [url],
        creditCost: 4,
        chargeSource: 'Credit',
      },
      {
        type: 'downloaded',
        at: at++,
        id,
        url,
        file: join(dir, 'out', `${id}.png`),
        bytes: 1200,
        sha256: 's'.repeat(64),
      },
    );
  }
  await writeFile(join(dir, 'journal.jsonl'), lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
  note(`${JOBS} done jobs, ${lines.length} journal lines`);

  const replay = await timeIt(async () => (await replayJournalFile(join(dir, 'journal.jsonl'))).jobs);
  const data = await timeIt(() =>
    buildReportData({
      pipeline: 'bench',
      runId: 'r',
      manifestFile: 'bench.yaml',
      jobs,
      state: replay.value,
      now: new Date(),
    }),
  );
  const outDir = join(dir, 'out');
  const html = await timeIt(() => renderReportHtml(data.value, outDir));
  const index = await timeIt(() => {
    const built = buildResultsIndex(data.value, outDir);
    return { json: JSON.stringify(built, null, 2), csv: renderResultsCsv(built) };
  });
  const junit = await timeIt(() => renderJunit(data.value));
  const write = await timeIt(() =>
    writeReportFiles(data.value, {
      resultsDir: outDir,
      reportFile: join(outDir, 'report.html'),
      junitFile: join(dir, 'junit.xml'),
    }),
  );
  const total = replay.ms + data.ms + write.ms;
  const browser = await measureInChromium(join(outDir, 'report.html'), jobs, outDir);
  emitResult('report-5000', {
    jobs: JOBS,
    replayMs: replay.ms,
    buildDataMs: data.ms,
    renderHtmlMs: html.ms,
    resultsIndexMs: index.ms,
    junitMs: junit.ms,
    writeAllMs: write.ms,
    totalMs: round(total),
    htmlMB: round(html.value.length / 1e6, 2),
    resultsJsonMB: round(index.value.json.length / 1e6, 2),
    ...browser,
  });
} finally {
  await rm(dir, { recursive: true, force: true });
}

/**
 * The written page in headless Chromium at 1400 × 1000: `pageLoadMs` from navigation to every card
 * built (the page sets body[data-ready]), `firstPaintMs` (first contentful paint), `filterMs` (median of
 * 6 changes of the product filter, from the change to the next frame), `gridMs` (the grid of all
 * results: rows style × columns product, to the next frame), `jsHeapMB` after the grid.
 */
async function measureInChromium(reportFile, jobs, outDir) {
  const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (process.env.BENCH_REPORT_BROWSER === '0' || !existsSync(chromiumPath)) {
    note(`no Chromium at ${chromiumPath} (or BENCH_REPORT_BROWSER=0): page timings skipped`);
    return {};
  }
  const { chromium } = await import('playwright-core');
  const { renderPng } = await import('../dist/simulator/media.js');
  for (const job of jobs) {
    await writeFile(
      join(outDir, `${job.id}.png`),
      renderPng({ label: job.id, prompt: job.prompt, aspectRatio: '16:9' }),
    );
  }
  const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const started = performance.now();
    await page.goto(pathToFileURL(reportFile).href);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 120_000 });
    const pageLoadMs = round(performance.now() - started);
    const firstPaintMs = round(
      await page.evaluate(
        () => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN,
      ),
    );
    // A change event on a select, then the frame that shows its result.
    const change = (selector, value) =>
      page.evaluate(
        ([selector, value]) =>
          new Promise((resolve) => {
            const start = performance.now();
            const select = document.querySelector(selector);
            select.value = value;
            select.dispatchEvent(new Event('change', { bubbles: true }));
            requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - start), 0));
          }),
        [selector, value],
      );
    const filters = [];
    for (const value of ['product-7', '', 'product-23', '', 'product-41', '']) {
      filters.push(await change('select[data-axis="product"]', value));
    }
    await page.evaluate(() => {
      document.querySelector('#grid-rows').value = 'style';
      document.querySelector('#grid-cols').value = 'product';
    });
    const gridMs = round(await change('#view', 'grid'));
    const jsHeapMB = round(
      (await page.evaluate(() => performance.memory?.usedJSHeapSize ?? Number.NaN)) / 1048576,
    );
    return { pageLoadMs, firstPaintMs, filterMs: round(median(filters)), gridMs, jsHeapMB };
  } finally {
    await browser.close();
  }
}
