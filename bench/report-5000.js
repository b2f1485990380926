/**
 * Benchmark: what `apply` adds at the end of a run of 5,000 done jobs (what `runner report` does too):
 * replay the journal, join it with the jobs, render the HTML report, the results index (JSON and
 * CSV) and JUnit, and write them. The journal's records have the real writer's shapes (intent,
 * created, completed, downloaded per job). Reported only, never enforced.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildReportData } from '../dist/report/report-data.js';
import { renderReportHtml } from '../dist/report/render-html.js';
import { renderJunit } from '../dist/report/render-junit.js';
import { buildResultsIndex, renderResultsCsv } from '../dist/report/results-index.js';
import { writeReportFiles } from '../dist/report/write-report-files.js';
import { replayJournalFile } from '../dist/state/replay.js';
import { emitResult, note, round, timeIt } from './measure.js';

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
  });
} finally {
  await rm(dir, { recursive: true, force: true });
}
