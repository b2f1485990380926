/**
 * Runs every benchmark in its own child process (so each one's peak RSS is its own), one after the
 * other (they would disturb each other's timing on a 2-core machine), and prints a summary table.
 * Benchmarks measure and report; they never fail on timing. Exit code 1 only when a benchmark crashed.
 *
 *   npm run bench                      # build, then all benchmarks
 *   node bench/run.js plan-100k        # only the named ones (dist/ must be built)
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

const BENCHMARKS = [
  'plan-100k',
  'plan-scale',
  'journal-replay',
  'executor-200',
  'report-5000',
  'startup',
  'apply-scaling',
  'diff-100k',
  'results-s3',
  'apply-startup-s3',
  'apply-large-image-s3',
];
const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));

/** The rows each benchmark contributes to the table: [label, field, unit]. */
const ROWS = {
  'plan-100k': [
    ['jobs', 'jobs', ''],
    ['validation issues (warnings)', 'issues', ''],
    ['stage 1: load + expand (offline validation)', 'expandMs', 'ms'],
    ['load saved catalog', 'loadCatalogMs', 'ms'],
    ['stage 2: validate against catalog', 'validateCatalogMs', 'ms'],
    ['sort + collapse issues', 'sortIssuesMs', 'ms'],
    ['buildPlan', 'buildPlanMs', 'ms'],
    ['estimateCost', 'estimateCostMs', 'ms'],
    ['total in-process (goal < 2000 ms)', 'totalMs', 'ms'],
    ['peak RSS after pipeline (goal < 300 MB)', 'pipelineMaxRssMB', 'MB'],
    ['CLI `runner plan --offline --format json` wall time', 'cliMs', 'ms'],
    ['CLI peak RSS', 'cliMaxRssMB', 'MB'],
    ['CLI report size', 'cliReportMB', 'MB'],
    ['CLI exit code', 'cliExitCode', ''],
  ],
  'plan-scale': [
    ['1,000 jobs: wall time, min', '1k.minMs', 'ms'],
    ['1,000 jobs: wall time, median', '1k.medianMs', 'ms'],
    ['1,000 jobs: peak RSS, min', '1k.minRssMB', 'MB'],
    ['1,000 jobs: peak RSS, median', '1k.medianRssMB', 'MB'],
    ['1,000 jobs: runs', '1k.runs', ''],
    ['1,000 jobs: exit code (0 expected)', '1k.exitCode', ''],
    ['10,000 jobs: wall time, min', '10k.minMs', 'ms'],
    ['10,000 jobs: wall time, median', '10k.medianMs', 'ms'],
    ['10,000 jobs: peak RSS, min', '10k.minRssMB', 'MB'],
    ['10,000 jobs: peak RSS, median', '10k.medianRssMB', 'MB'],
    ['10,000 jobs: runs', '10k.runs', ''],
    ['10,000 jobs: exit code (0 expected)', '10k.exitCode', ''],
    ['100,000 jobs: wall time, min (goal ≤ 1000 ms)', '100k.minMs', 'ms'],
    ['100,000 jobs: wall time, median', '100k.medianMs', 'ms'],
    ['100,000 jobs: peak RSS, min (goal ≤ 200 MB)', '100k.minRssMB', 'MB'],
    ['100,000 jobs: peak RSS, median', '100k.medianRssMB', 'MB'],
    ['100,000 jobs: runs', '100k.runs', ''],
    ['100,000 jobs: exit code (0 expected)', '100k.exitCode', ''],
    ['1,000,000 jobs: wall time, min (goal ≤ 10000 ms)', '1m.minMs', 'ms'],
    ['1,000,000 jobs: wall time, median', '1m.medianMs', 'ms'],
    ['1,000,000 jobs: peak RSS, min (goal ≤ 400 MB)', '1m.minRssMB', 'MB'],
    ['1,000,000 jobs: peak RSS, median', '1m.medianRssMB', 'MB'],
    ['1,000,000 jobs: runs', '1m.runs', ''],
    ['1,000,000 jobs: exit code (0 expected)', '1m.exitCode', ''],
  ],
  'diff-100k': [
    ['plan report size (100,000 jobs)', 'basePlanMB', 'MB'],
    ['1% changed: text, min / median (goal ≤ 2000 ms)', ['some.text.minMs', 'some.text.medianMs'], 'ms'],
    ['1% changed: JSON, min / median', ['some.json.minMs', 'some.json.medianMs'], 'ms'],
    ['every job changed: text, min / median', ['all.text.minMs', 'all.text.medianMs'], 'ms'],
    ['every job changed: JSON, min / median', ['all.json.minMs', 'all.json.medianMs'], 'ms'],
    ['peak RSS (every job changed, JSON)', 'all.json.maxRssMB', 'MB'],
  ],
  'results-s3': [
    ['200 × 5 MB to disk (folder store), wall time min / median', ['diskMinMs', 'diskMs'], 'ms'],
    [
      '200 × 5 MB to the bucket (S3 store, s3rver), wall time min / median',
      ['bucketMinMs', 'bucketMs'],
      'ms',
    ],
    ['bucket / disk wall time, median of the rounds (goal ≤ 1.2)', 'wallRatio', ''],
    ['bucket / disk client CPU, median of the rounds', 'cpuRatio', ''],
    ['bucket / disk CPU of client + source + endpoint, median', 'machineCpuRatio', ''],
    ['peak RSS: disk / bucket', ['diskRssMB', 'bucketRssMB'], 'MB'],
    ['bucket RSS above disk (goal ≤ 100 MB)', 'rssAboveDiskMB', 'MB'],
    ['1 GB video: peak RSS disk / bucket (goal: flat)', ['bigDiskRssMB', 'bigBucketRssMB'], 'MB'],
    ['1 GB video: wall time disk / bucket', ['bigDiskMs', 'bigBucketMs'], 'ms'],
  ],
  'apply-large-image-s3': [
    ['one image to the bucket: peak RSS at 48 / 192 MiB (goal: flat)', ['rssMB_48', 'rssMB_192'], 'MB'],
    ['GETs of the image (goal: 0)', ['imageGets_48', 'imageGets_192'], ''],
    ['wall time at 48 / 192 MiB', ['ms_48', 'ms_192'], 'ms'],
  ],
  'apply-startup-s3': [
    ['runs of each case (interleaved)', 'runs', ''],
    [
      'apply --output DIR, spawn to first create, min / median',
      ['folderToCreateMinMs', 'folderToCreateMedianMs'],
      'ms',
    ],
    [
      'apply --output s3://…, spawn to first create, min / median',
      ['bucketToCreateMinMs', 'bucketToCreateMedianMs'],
      'ms',
    ],
    ['bucket minus folder, medians', 'bucketMinusFolderMedianMs', 'ms'],
  ],
  'journal-replay': [
    ['runs of each measure', 'runs', ''],
    ['10k: journal size', 'journalMB_10k', 'MB'],
    ['10k: snapshot size', 'snapshotMB_10k', 'MB'],
    ['10k: write the snapshot', 'snapshotWriteMs_10k', 'ms'],
    ['10k: replay, whole journal, min / median', ['replayFullMs_10k', 'replayFullMsMedian_10k'], 'ms'],
    [
      '10k: replay, whole journal, peak RSS min / median',
      ['replayFullRssMB_10k', 'replayFullRssMBMedian_10k'],
      'MB',
    ],
    [
      '10k: replay, snapshot + tail (goal 100k: ≤ 500 ms, ≤ 150 MB), min / median',
      ['replaySnapshotMs_10k', 'replaySnapshotMsMedian_10k'],
      'ms',
    ],
    [
      '10k: replay, snapshot + tail, peak RSS min / median',
      ['replaySnapshotRssMB_10k', 'replaySnapshotRssMBMedian_10k'],
      'MB',
    ],
    ['10k: openRunState, whole journal, min / median', ['openFullMs_10k', 'openFullMsMedian_10k'], 'ms'],
    [
      '10k: openRunState, whole journal, peak RSS min / median',
      ['openFullRssMB_10k', 'openFullRssMBMedian_10k'],
      'MB',
    ],
    [
      '10k: openRunState, snapshot + tail, min / median',
      ['openSnapshotMs_10k', 'openSnapshotMsMedian_10k'],
      'ms',
    ],
    [
      '10k: openRunState, snapshot + tail, peak RSS min / median',
      ['openSnapshotRssMB_10k', 'openSnapshotRssMBMedian_10k'],
      'MB',
    ],
    [
      '10k: CLI apply resume, whole journal (+ writes a snapshot), min / median',
      ['applyFullMs_10k', 'applyFullMsMedian_10k'],
      'ms',
    ],
    [
      '10k: CLI apply resume, whole journal, peak RSS min / median',
      ['applyFullRssMB_10k', 'applyFullRssMBMedian_10k'],
      'MB',
    ],
    [
      '10k: CLI apply resume, snapshot + tail (goal 100k: ≤ 300 MB), min / median',
      ['applySnapshotMs_10k', 'applySnapshotMsMedian_10k'],
      'ms',
    ],
    [
      '10k: CLI apply resume, snapshot + tail, peak RSS min / median',
      ['applySnapshotRssMB_10k', 'applySnapshotRssMBMedian_10k'],
      'MB',
    ],
    ['100k: journal size', 'journalMB_100k', 'MB'],
    ['100k: snapshot size', 'snapshotMB_100k', 'MB'],
    ['100k: write the snapshot', 'snapshotWriteMs_100k', 'ms'],
    ['100k: replay, whole journal, min / median', ['replayFullMs_100k', 'replayFullMsMedian_100k'], 'ms'],
    [
      '100k: replay, whole journal, peak RSS min / median',
      ['replayFullRssMB_100k', 'replayFullRssMBMedian_100k'],
      'MB',
    ],
    [
      '100k: replay, snapshot + tail (goal 100k: ≤ 500 ms, ≤ 150 MB), min / median',
      ['replaySnapshotMs_100k', 'replaySnapshotMsMedian_100k'],
      'ms',
    ],
    [
      '100k: replay, snapshot + tail, peak RSS min / median',
      ['replaySnapshotRssMB_100k', 'replaySnapshotRssMBMedian_100k'],
      'MB',
    ],
    ['100k: openRunState, whole journal, min / median', ['openFullMs_100k', 'openFullMsMedian_100k'], 'ms'],
    [
      '100k: openRunState, whole journal, peak RSS min / median',
      ['openFullRssMB_100k', 'openFullRssMBMedian_100k'],
      'MB',
    ],
    [
      '100k: openRunState, snapshot + tail, min / median',
      ['openSnapshotMs_100k', 'openSnapshotMsMedian_100k'],
      'ms',
    ],
    [
      '100k: openRunState, snapshot + tail, peak RSS min / median',
      ['openSnapshotRssMB_100k', 'openSnapshotRssMBMedian_100k'],
      'MB',
    ],
    [
      '100k: CLI apply resume, whole journal (+ writes a snapshot), min / median',
      ['applyFullMs_100k', 'applyFullMsMedian_100k'],
      'ms',
    ],
    [
      '100k: CLI apply resume, whole journal, peak RSS min / median',
      ['applyFullRssMB_100k', 'applyFullRssMBMedian_100k'],
      'MB',
    ],
    [
      '100k: CLI apply resume, snapshot + tail (goal 100k: ≤ 300 MB), min / median',
      ['applySnapshotMs_100k', 'applySnapshotMsMedian_100k'],
      'ms',
    ],
    [
      '100k: CLI apply resume, snapshot + tail, peak RSS min / median',
      ['applySnapshotRssMB_100k', 'applySnapshotRssMBMedian_100k'],
      'MB',
    ],
  ],
  'executor-200': [
    ['jobs (done)', 'done', ''],
    ['job duration (real)', 'jobDurationRealMs', 'ms'],
    ['makespan', 'makespanMs', 'ms'],
    ['ideal ceil(N/4) × duration', 'idealMs', 'ms'],
    ['ratio (goal < 1.05)', 'ratio', ''],
    ['  of which the polling policy (expected)', 'pollPolicyRatio', ''],
    ['  other overhead per job in a slot (not scaled)', 'overheadPerSlotMs', 'ms'],
    ['estimated ratio at full scale (45 s jobs)', 'estimatedFullScaleRatio', ''],
    ['HTTP requests per job', 'requestsPerJob', ''],
    ['polls per job', 'pollsPerJob', ''],
  ],
  'report-5000': [
    ['jobs (done, one result each)', 'jobs', ''],
    ['replay the journal', 'replayMs', 'ms'],
    ['join jobs and state', 'buildDataMs', 'ms'],
    ['render report.html', 'renderHtmlMs', 'ms'],
    ['render results.json + results.csv', 'resultsIndexMs', 'ms'],
    ['render JUnit', 'junitMs', 'ms'],
    ['render and write all four files', 'writeAllMs', 'ms'],
    ['total added to apply (replay + join + write)', 'totalMs', 'ms'],
    ['report.html size', 'htmlMB', 'MB'],
    ['results.json size', 'resultsJsonMB', 'MB'],
    ['Chromium: navigation to every card built', 'pageLoadMs', 'ms'],
    ['Chromium: first contentful paint', 'firstPaintMs', 'ms'],
    ['Chromium: a filter change, to its frame (median of 6)', 'filterMs', 'ms'],
    ['Chromium: grid of all results, to its frame', 'gridMs', 'ms'],
    ['Chromium: JS heap after the grid', 'jsHeapMB', 'MB'],
  ],
  startup: [
    ['runs of each command (min / median below)', 'runs', ''],
    ['`node -e 0` (the floor), min', 'nodeFloorMinMs', 'ms'],
    ['`node -e 0` (the floor), median', 'nodeFloorMedianMs', 'ms'],
    ['`runner --help`, min (goal ≤ 100 ms)', 'helpMinMs', 'ms'],
    ['`runner --help`, median', 'helpMedianMs', 'ms'],
    ['`runner validate --help`, min', 'validateHelpMinMs', 'ms'],
    ['`runner validate --help`, median', 'validateHelpMedianMs', 'ms'],
    ['`runner validate demo --catalog F`, min (goal ≤ 150 ms)', 'validateMinMs', 'ms'],
    ['`runner validate demo --catalog F`, median', 'validateMedianMs', 'ms'],
    ['modules loaded by validate', 'validateModules', ''],
    ['modules loaded by --help', 'helpModules', ''],
    ['validate loads undici', 'validateLoadsUndici', ''],
  ],
  'apply-scaling': [
    ['runner CPU per job, 500 jobs', 'cpuMsPerJob500', 'ms'],
    ['runner CPU per job, 5,000 jobs', 'cpuMsPerJob5000', 'ms'],
    ['  last tenth of the run, 500 jobs', 'lastTenthCpuMsPerJob500', 'ms'],
    ['  last tenth of the run, 5,000 jobs', 'lastTenthCpuMsPerJob5000', 'ms'],
    ['growth: last tenth, 5,000 over 500 (flat ≈ 1)', 'lastTenthGrowth', ''],
    ['growth: last over first tenth of 5,000 (flat ≈ 1)', 'withinRunGrowth', ''],
    ['simulator CPU per job (own process), 5,000 jobs', 'simCpuMsPerJob5000', 'ms'],
    ['wall time, 500 jobs', 'wallMs500', 'ms'],
    ['wall time, 5,000 jobs', 'wallMs5000', 'ms'],
  ],
};

function runBenchmark(name) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, [`${BENCH_DIR}${name}.js`], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.on('close', (code, signal) => {
      const wallMs = Math.round(performance.now() - started);
      const line = stdout
        .split('\n')
        .reverse()
        .find((l) => l.startsWith('{"bench":'));
      if (code !== 0 || line === undefined) {
        resolve({
          name,
          ok: false,
          wallMs,
          error: `exit ${code ?? signal}${line ? '' : ', no result line'}`,
        });
        return;
      }
      resolve({ name, ok: true, wallMs, result: JSON.parse(line) });
    });
  });
}

function formatValue(value, unit) {
  if (value === undefined) return '—';
  if (typeof value === 'number') return `${value.toLocaleString('en-US')}${unit ? ` ${unit}` : ''}`;
  return String(value);
}

function renderTable(outcomes) {
  const rows = [];
  for (const outcome of outcomes) {
    if (!outcome.ok) {
      rows.push([outcome.name, 'FAILED', outcome.error]);
      continue;
    }
    for (const [label, field, unit] of ROWS[outcome.name] ?? []) {
      // A pair of fields (min, median) shows as `min / median unit`.
      const value = Array.isArray(field)
        ? `${field.map((f) => formatValue(outcome.result[f], '')).join(' / ')} ${unit}`
        : formatValue(outcome.result[field], unit);
      rows.push([outcome.name, label, value]);
    }
    rows.push([
      outcome.name,
      'peak RSS of the whole benchmark process',
      formatValue(outcome.result.maxRssMB, 'MB'),
    ]);
    rows.push([outcome.name, 'benchmark wall time (incl. setup)', formatValue(outcome.wallMs, 'ms')]);
    rows.push([outcome.name, 'load average (1 min) at the end', formatValue(outcome.result.loadAvg1, '')]);
  }
  const header = ['benchmark', 'measure', 'value'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const fmt = (r) =>
    r.map((cell, i) => (i === 2 ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))).join('  ');
  let previous;
  const lines = [fmt(header), widths.map((w) => '-'.repeat(w)).join('  ')];
  for (const r of rows) {
    lines.push(fmt([r[0] === previous ? '' : r[0], r[1], r[2]]));
    previous = r[0];
  }
  return lines.join('\n');
}

const selected = process.argv.slice(2);
const unknown = selected.filter((name) => !BENCHMARKS.includes(name));
if (unknown.length > 0) {
  process.stderr.write(`unknown benchmark(s): ${unknown.join(', ')}; known: ${BENCHMARKS.join(', ')}\n`);
  process.exit(2);
}
const outcomes = [];
for (const name of selected.length > 0 ? selected : BENCHMARKS) {
  process.stderr.write(`▶ ${name}\n`);
  outcomes.push(await runBenchmark(name));
}
process.stdout.write(`\n${renderTable(outcomes)}\n\n`);
process.stdout.write(
  `Node ${process.version}, ${(await import('node:os')).cpus().length} CPUs. Goals are reported, never enforced.\n`,
);
process.stdout.write(
  `Raw results:\n${outcomes.map((o) => JSON.stringify(o.ok ? o.result : o)).join('\n')}\n`,
);
if (outcomes.some((o) => !o.ok)) process.exitCode = 1;
