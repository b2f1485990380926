/**
 * Benchmark: reading a run's state at 10,000 and 100,000 done jobs, without and with a state snapshot
 * (#8.3): the replay every command runs (`replayRunJournal`), apply's `openRunState` (lock, replay,
 * open for append), and a resumed `runner apply` through the real CLI with nothing left to run. Every
 * figure is taken in a fresh child process of its own, so its peak RSS is its own.
 *
 * The journal is what apply writes for a manifest of N image jobs: the plan is built by the real
 * pipeline (so ids, payload hashes, idempotency keys and payloads match what `apply` expects), and per
 * job the records the executor writes (`intent` with its payload, `created`, two `status`,
 * `completed`, `downloaded`), checked against the real writer's key order.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  emitResult,
  fetchSimulatorCatalog,
  median,
  note,
  round,
  runResumedApply,
  timeIt,
} from './measure.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Jobs per measured state; `BENCH_SIZES=1000,5000` overrides (a quick check of the benchmark itself). */
const SIZES = (process.env.BENCH_SIZES ?? '10000,100000').split(',').map(Number);
/** Repeats of each measure (min and median are reported). `BENCH_RUNS` overrides. */
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
/** Repeats of the CLI apply measures, which take seconds each at 100,000 jobs. `BENCH_APPLY_RUNS` overrides. */
const APPLY_RUNS = Number(process.env.BENCH_APPLY_RUNS ?? 1);
const PIPELINE = 'bench-journal';
const RUN_ID = 'default';
const MODEL = 'chatgpt-image-sangtao';

function manifestText(jobs) {
  const products = Array.from({ length: 100 }, (_, i) => `product-${String(i).padStart(3, '0')}`);
  return [
    'version: 1',
    `name: ${PIPELINE}`,
    'defaults:',
    '  kind: image',
    `  model: ${MODEL}`,
    '  params: { format: png }',
    'jobs:',
    "  - id: '{{ product }}-v{{ variant }}'",
    '    matrix:',
    `      product: [${products.join(', ')}]`,
    `      variant: [${Array.from({ length: jobs / 100 }, (_, i) => i + 1).join(', ')}]`,
    '    prompt: >-',
    '      A watercolor advertisement of {{ product }}, variant {{ variant }}, on a wooden table in soft',
    '      morning light',
    "    params: { aspectRatio: '16:9', resolution: 1K }",
    '',
  ].join('\n');
}

function sha(text) {
  return createHash('sha256').update(text).digest('hex');
}

/** One done job's records, in the order and with the keys the executor writes them. */
function entriesFor(job, index, at, outputDir, deriveKey, snapshotPayload) {
  const jobId = `job_${sha(`job-${index}`).slice(0, 24)}`;
  const url = `http://127.0.0.1:40123/__results/${jobId}/1.png`;
  const idempotencyKey = deriveKey({
    pipeline: PIPELINE,
    runId: RUN_ID,
    jobId: job.id,
    payloadHash: job.payloadHash,
    attempt: 1,
  });
  const base = { id: job.id, attempt: 1 };
  return [
    {
      type: 'intent',
      ...base,
      payloadHash: job.payloadHash,
      idempotencyKey,
      payload: snapshotPayload(job),
      at,
    },
    {
      type: 'created',
      ...base,
      jobId,
      creditCost: 4,
      chargeSource: 'Credit',
      queuePosition: 0,
      at: at + 180,
    },
    { type: 'status', ...base, status: 'WaitingForAgent', at: at + 4_000 },
    { type: 'status', ...base, status: 'Processing', progress: 12, at: at + 8_000 },
    { type: 'completed', ...base, resultUrls: [url], creditCost: 4, chargeSource: 'Credit', at: at + 46_000 },
    {
      type: 'downloaded',
      id: job.id,
      url,
      file: join(outputDir, `${job.id}.png`),
      bytes: 1_234_567,
      sha256: sha(`file-${index}`),
      at: at + 46_400,
    },
  ];
}

/** Child mode `--generate DIR N`: manifest, catalog, plan, and the journal of N done jobs. */
async function generate(dir, jobs) {
  const { validateManifestOffline } = await import('../dist/manifest/validate-manifest.js');
  const { validateJobsAgainstCatalog } = await import('../dist/catalog/validate-job.js');
  const { createFileInfoReader } = await import('../dist/catalog/read-file-info.js');
  const { buildPlan } = await import('../dist/plan/build-plan.js');
  const { snapshotPayload } = await import('../dist/plan/payload-diff.js');
  const { deriveIdempotencyKey, resolveStateDir } = await import('../dist/state/index.js');
  const { openJournal, journalPathFor } = await import('../dist/state/backends/folder/journal.js');
  const manifestFile = join(dir, `${PIPELINE}.yaml`);
  const outputDir = join(dir, 'out');
  const stateRoot = join(dir, 'state');
  await writeFile(manifestFile, manifestText(jobs));
  const catalog = await fetchSimulatorCatalog();
  const date = new Date().toISOString().slice(0, 10);
  const one = await validateManifestOffline(manifestFile, { env: process.env, date, maxJobs: jobs });
  const two = await validateJobsAgainstCatalog(one.jobs, catalog, {
    locate: (path) => one.loaded.locate(path),
    manifestDir: one.loaded.dir,
    fileInfo: createFileInfoReader(),
  });
  const plan = buildPlan({ loaded: one.loaded, planned: two.planned, warnings: [] });
  if (plan.jobs.length !== jobs) throw new Error(`planned ${plan.jobs.length} jobs, expected ${jobs}`);

  const stateDir = resolveStateDir({ manifestFile, pipeline: PIPELINE, runId: RUN_ID, stateDir: stateRoot });
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  const journalPath = journalPathFor(stateDir);
  // The header and the run record through the real writer; then one job, to check the generated shape.
  const start = Date.now() - jobs * 12_000 - 60_000;
  const journal = await openJournal(journalPath, {
    clock: { now: () => start, sleep: () => Promise.resolve() },
    identity: { pipeline: PIPELINE, runId: RUN_ID },
  });
  await journal.append({ type: 'run', runId: RUN_ID, pipeline: PIPELINE, pid: 1, manifestFile });
  const generated = (index) =>
    entriesFor(
      plan.jobs[index],
      index,
      start + index * 12_000,
      outputDir,
      deriveIdempotencyKey,
      snapshotPayload,
    );
  for (const { at, ...entry } of generated(0)) await journal.append({ ...entry, at });
  await journal.close();
  const written = (await readFile(journalPath, 'utf8')).trimEnd().split('\n').slice(2);
  generated(0).forEach((entry, i) => {
    const keys = (value) => Object.keys(value).join(',');
    if (keys(JSON.parse(written[i])) !== keys(entry)) {
      throw new Error(`generated record ${i} differs in shape:\n  ${JSON.stringify(entry)}\n  ${written[i]}`);
    }
  });
  const chunks = [];
  for (let i = 1; i < jobs; i++) {
    for (const entry of generated(i)) chunks.push(`${JSON.stringify(entry)}\n`);
    if (chunks.length > 60_000) await writeFile(journalPath, chunks.splice(0).join(''), { flag: 'a' });
  }
  await writeFile(journalPath, chunks.join(''), { flag: 'a' });
  process.stdout.write(JSON.stringify({ manifestFile, stateRoot, outputDir, journalPath }));
}

/** Child mode `--replay JOURNAL N`: `replayRunJournal`, as status, runs, report and plan read state. */
async function replayOnce(journalPath, jobs) {
  const { replayRunJournal } = await import('../dist/state/backends/folder/replay-run-journal.js');
  const run = await timeIt(() => replayRunJournal(journalPath));
  if (run.value.replay.jobs.size !== jobs) throw new Error(`replayed ${run.value.replay.jobs.size} jobs`);
  const snapshot = run.value.snapshot !== undefined;
  process.stdout.write(JSON.stringify({ ms: run.ms, maxRssKiB: process.resourceUsage().maxRSS, snapshot }));
}

/** Child mode `--open MANIFEST STATEROOT N`: `openRunState` (lock, replay, open for append). */
async function openOnce(manifestFile, stateDir, jobs) {
  const { openRunState } = await import('../dist/state/backends/folder/open-run-state.js');
  const run = await timeIt(() => openRunState({ manifestFile, pipeline: PIPELINE, runId: RUN_ID, stateDir }));
  if (run.value.jobs.size !== jobs) throw new Error(`openRunState gave ${run.value.jobs.size} jobs`);
  await run.value.close();
  process.stdout.write(JSON.stringify({ ms: run.ms, maxRssKiB: process.resourceUsage().maxRSS }));
}

/** Child mode `--write-snapshot JOURNAL`: replays the journal and writes its snapshot. */
async function snapshotOnce(journalPath) {
  const { replayRunJournal } = await import('../dist/state/backends/folder/replay-run-journal.js');
  const { writeSnapshot } = await import('../dist/state/backends/folder/snapshot-file.js');
  const reading = await replayRunJournal(journalPath);
  const run = await timeIt(() =>
    writeSnapshot(journalPath, {
      position: reading.end,
      jobs: reading.replay.jobs,
      meta: reading.checkpoint,
      at: Date.now(),
    }),
  );
  process.stdout.write(JSON.stringify({ ms: run.ms }));
}

function runChild(args) {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [fileURLToPath(import.meta.url), ...args],
      { maxBuffer: 1024 * 1024 },
      (error, stdout, stderr) =>
        error ? reject(new Error(`child ${args[0]} failed: ${stderr}`)) : resolve(JSON.parse(stdout)),
    );
  });
}

/** Min and median of repeated measures, in ms and MB. */
function summarize(samples) {
  const pick = (values) => ({ min: Math.min(...values), median: median(values) });
  const ms = pick(samples.map((s) => s.ms));
  const mb = pick(samples.map((s) => round(s.maxRssKiB / 1024)));
  return { ms: ms.min, msMedian: ms.median, rssMB: mb.min, rssMBMedian: mb.median };
}

async function repeat(label, fn, runs = RUNS) {
  const samples = [];
  for (let i = 0; i < runs; i++) samples.push(await fn());
  const result = summarize(samples);
  note(
    `${label}: ${result.ms} ms (median ${result.msMedian}), ${result.rssMB} MB (median ${result.rssMBMedian})`,
  );
  return result;
}

async function measureSize(root, jobs, env) {
  const dir = join(root, String(jobs));
  await mkdir(dir);
  const gen = await timeIt(() => runChild(['--generate', dir, String(jobs)]));
  const journalBytes = (await stat(gen.value.journalPath)).size;
  note(`${jobs} jobs: journal ${round(journalBytes / 1024 / 1024)} MB written in ${gen.ms} ms`);
  const snapshotFile = join(gen.value.journalPath, '..', 'snapshot.jsonl');
  const aside = async () => {
    if (existsSync(snapshotFile)) await rename(snapshotFile, `${snapshotFile}.aside`);
  };
  const replay = () => runChild(['--replay', gen.value.journalPath, String(jobs)]);
  const open = () => runChild(['--open', gen.value.manifestFile, gen.value.stateRoot, String(jobs)]);

  const replayFull = await repeat(`${jobs}: replay, whole journal`, replay);
  const openFull = await repeat(`${jobs}: openRunState, whole journal`, open);
  // Without a snapshot, apply replays the whole journal and writes one at its end: set it aside each time.
  const applyFull = await repeat(
    `${jobs}: CLI apply, whole journal`,
    async () => {
      await aside();
      return runResumedApply(['--state-dir', gen.value.stateRoot], gen.value, env);
    },
    APPLY_RUNS,
  );
  await rm(snapshotFile, { force: true });
  await rm(`${snapshotFile}.aside`, { force: true });
  const write = await runChild(['--write-snapshot', gen.value.journalPath]);
  const snapshotBytes = (await stat(snapshotFile)).size;
  note(`${jobs}: snapshot ${round(snapshotBytes / 1024 / 1024)} MB written in ${write.ms} ms`);
  const replaySnap = await repeat(`${jobs}: replay, snapshot + tail`, async () => {
    const result = await replay();
    if (!result.snapshot) throw new Error('the snapshot was not used');
    return result;
  });
  const openSnap = await repeat(`${jobs}: openRunState, snapshot + tail`, open);
  const applySnap = await repeat(
    `${jobs}: CLI apply, snapshot + tail`,
    () => runResumedApply(['--state-dir', gen.value.stateRoot], gen.value, env),
    APPLY_RUNS,
  );
  const k = `${jobs / 1000}k`;
  const fields = {};
  const put = (name, r) => {
    fields[`${name}Ms_${k}`] = r.ms;
    fields[`${name}MsMedian_${k}`] = r.msMedian;
    fields[`${name}RssMB_${k}`] = r.rssMB;
    fields[`${name}RssMBMedian_${k}`] = r.rssMBMedian;
  };
  put('replayFull', replayFull);
  put('replaySnapshot', replaySnap);
  put('openFull', openFull);
  put('openSnapshot', openSnap);
  put('applyFull', applyFull);
  put('applySnapshot', applySnap);
  fields[`journalMB_${k}`] = round(journalBytes / 1024 / 1024);
  fields[`snapshotMB_${k}`] = round(snapshotBytes / 1024 / 1024);
  fields[`snapshotWriteMs_${k}`] = write.ms;
  await rm(dir, { recursive: true, force: true });
  return fields;
}

async function main() {
  const root = await mkdtemp(join(tmpdir(), 'runner-bench-journal-'));
  const { startSimulator } = await import('../dist/simulator/index.js');
  const sim = await startSimulator({ timeScale: 0.001 });
  try {
    const env = { MEDIAGEN_BASE_URL: sim.baseUrl, MEDIAGEN_API_KEY: sim.apiKey };
    const fields = { runs: RUNS, applyRuns: APPLY_RUNS };
    for (const jobs of SIZES) Object.assign(fields, await measureSize(root, jobs, env));
    emitResult('journal-replay', fields);
  } finally {
    await sim.close();
    await rm(root, { recursive: true, force: true });
  }
}

const [mode, ...args] = process.argv.slice(2);
if (mode === '--generate') await generate(args[0], Number(args[1]));
else if (mode === '--replay') await replayOnce(args[0], Number(args[1]));
else if (mode === '--open') await openOnce(args[0], args[1], Number(args[2]));
else if (mode === '--write-snapshot') await snapshotOnce(args[0]);
else await main();
