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
  'journal-replay': [
    ['jobs', 'jobs', ''],
    ['lines', 'lines', ''],
    ['journal size', 'journalMB', 'MB'],
    ['read file', 'readMs', 'ms'],
    ['replayJournal(text), first (cold) run', 'replayMs', 'ms'],
    ['replayJournal(text), median of 3', 'replayMedianMs', 'ms'],
    ['read + first replay', 'readAndReplayMs', 'ms'],
    ['openRunState (lock, read, replay, open)', 'openRunStateMs', 'ms'],
    ['peak RSS after read + first replay', 'replayMaxRssMB', 'MB'],
    ['openRunState peak RSS (own process)', 'openRunStateMaxRssMB', 'MB'],
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
      rows.push([outcome.name, label, formatValue(outcome.result[field], unit)]);
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
