/**
 * Benchmark: replaying a 100,000-job state journal, as `runner apply`/`status`/`plan --run` do on
 * start. The record shapes come from the real writer: one sample job is journaled with `openJournal`,
 * and the 100,000 jobs are generated from those lines with only ids, hashes and times changed.
 */
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  deriveIdempotencyKey,
  journalPathFor,
  openJournal,
  openRunState,
  readJournalText,
  replayJournal,
} from '../dist/state/index.js';
import { emitResult, note, round, timeIt } from './measure.js';

const JOBS = 100_000;
const PIPELINE = 'bench-journal';
const RUN_ID = '2026-11-21';
const REPLAY_RUNS = 3;

function sha(text) {
  return createHash('sha256').update(text).digest('hex');
}

/** One job's records in the order the executor writes them (see src/execute/create-job.ts, poll-job.ts). */
function entriesFor(index, at) {
  const id = `product-${String(index % 100).padStart(3, '0')}-v${Math.floor(index / 100) + 1}`;
  const payloadHash = sha(`payload-${index}`);
  const jobId = `job_${sha(`job-${index}`).slice(0, 24)}`;
  const url = `http://127.0.0.1:40123/__results/${jobId}/1.png`;
  return [
    {
      type: 'intent',
      at,
      id,
      attempt: 1,
      payloadHash,
      idempotencyKey: deriveIdempotencyKey({
        pipeline: PIPELINE,
        runId: RUN_ID,
        jobId: id,
        payloadHash,
        attempt: 1,
      }),
    },
    {
      type: 'created',
      at: at + 180,
      id,
      attempt: 1,
      jobId,
      creditCost: 4,
      chargeSource: 'Credit',
      queuePosition: 0,
    },
    { type: 'status', at: at + 4_000, id, attempt: 1, status: 'WaitingForAgent' },
    { type: 'status', at: at + 8_000, id, attempt: 1, status: 'Processing', progress: 12 },
    {
      type: 'completed',
      at: at + 46_000,
      id,
      attempt: 1,
      resultUrls: [url],
      creditCost: 4,
      chargeSource: 'Credit',
    },
    {
      type: 'downloaded',
      at: at + 46_400,
      id,
      url,
      file: `/home/user/pipelines/runner-output/${id}.png`,
      bytes: 1_234_567,
      sha256: sha(`file-${index}`),
    },
  ];
}

/** Journals a sample through the real writer and returns its lines (the format to reproduce). */
async function writeSample(dir) {
  const path = join(dir, 'sample.jsonl');
  const journal = await openJournal(path);
  await journal.append({
    type: 'run',
    runId: RUN_ID,
    pipeline: PIPELINE,
    pid: process.pid,
    manifestFile: '/home/user/pipelines/bench.yaml',
  });
  for (const entry of entriesFor(0, Date.now())) {
    const { at: _at, ...rest } = entry;
    await journal.append(rest);
  }
  await journal.close();
  return (await readFile(path, 'utf8')).split('\n').filter((line) => line !== '');
}

/** The same records as the writer's lines: `JSON.stringify(record)` plus a newline, `at` in the writer's place. */
function formatLine(entry) {
  const { at, ...rest } = entry;
  return `${JSON.stringify({ ...rest, at })}\n`;
}

/** Child mode (`--generate <stateDir> <runLine>`): writes the 100,000-job journal and prints its size. */
async function generate(stateDir, runLine) {
  const chunks = [`${runLine}\n`];
  const start = Date.parse('2026-11-21T00:00:00Z');
  for (let i = 0; i < JOBS; i++) {
    for (const entry of entriesFor(i, start + i * 12_000)) chunks.push(formatLine(entry));
  }
  const text = chunks.join('');
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  await writeFile(journalPathFor(stateDir), text, { mode: 0o600 });
  process.stdout.write(JSON.stringify({ lines: chunks.length, bytes: Buffer.byteLength(text) }));
}

/** Child mode (`--open-run-state <stateDir> <manifestFile>`): times `openRunState` in a fresh process. */
async function openOnce(stateDir, manifestFile) {
  const open = await timeIt(() =>
    openRunState({ manifestFile, pipeline: PIPELINE, runId: RUN_ID, stateDir }),
  );
  if (open.value.jobs.size !== JOBS) throw new Error(`openRunState gave ${open.value.jobs.size} jobs`);
  await open.value.close();
  process.stdout.write(JSON.stringify({ ms: open.ms, maxRssKiB: process.resourceUsage().maxRSS }));
}

/** Runs this file in a child mode and parses the JSON it prints. */
function runChild(args) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [fileURLToPath(import.meta.url), ...args], (error, stdout, stderr) =>
      error ? reject(new Error(`child ${args[0]} failed: ${stderr}`)) : resolve(JSON.parse(stdout)),
    );
  });
}

/**
 * Reads and replays, keeping only figures: the text and the job map are garbage once this returns.
 * The first replay is the cold one `runner apply` pays; two more give a median less exposed to noise.
 */
async function measureReplay(stateDir) {
  const read = await timeIt(() => readJournalText(stateDir));
  const times = [];
  let jobs = 0;
  let firstMaxRssKiB = 0;
  for (let run = 0; run < REPLAY_RUNS; run++) {
    const replay = await timeIt(() => replayJournal(read.value));
    const done = [...replay.value.jobs.values()].filter((job) => job.status === 'done').length;
    if (replay.value.jobs.size !== JOBS || done !== JOBS) {
      throw new Error(`replay gave ${replay.value.jobs.size} jobs, ${done} done; expected ${JOBS}`);
    }
    jobs = replay.value.jobs.size;
    times.push(replay.ms);
    // Later runs stack on garbage of earlier ones: the peak that matters is the first run's.
    if (run === 0) firstMaxRssKiB = process.resourceUsage().maxRSS;
  }
  const sorted = [...times].sort((a, b) => a - b);
  return {
    jobs,
    readMs: read.ms,
    replayMs: times[0],
    replayMedianMs: sorted[Math.floor(sorted.length / 2)],
    firstMaxRssKiB,
  };
}

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'runner-bench-journal-'));
  try {
    const sample = await writeSample(dir);
    // Check the generator reproduces the writer's shape (same keys in the same order) before using it.
    const sampleAt = JSON.parse(sample[1]).at;
    const generated = entriesFor(0, sampleAt).map((entry) => formatLine(entry).trimEnd());
    generated.forEach((line, i) => {
      const keysOf = (text) => Object.keys(JSON.parse(text)).join(',');
      if (keysOf(line) !== keysOf(sample[i + 1])) {
        throw new Error(`generated line ${i} differs in shape:\n  ${line}\n  ${sample[i + 1]}`);
      }
    });

    // Generated in a child process so this process's peak RSS is the replay's alone.
    const stateDir = join(dir, 'state');
    const gen = await timeIt(() => runChild(['--generate', stateDir, sample[0]]));
    note(
      `journal written: ${gen.value.lines} lines, ${round(gen.value.bytes / 1024 / 1024)} MB in ${gen.ms} ms`,
    );
    const rssBeforeKiB = process.resourceUsage().maxRSS;

    const measured = await measureReplay(stateDir);
    const replayMaxRssKiB = measured.firstMaxRssKiB;
    note(
      `read ${measured.readMs} ms, replay ${measured.replayMs} ms, peak RSS ${round(replayMaxRssKiB / 1024)} MB`,
    );

    // What `runner apply` does on start (lock, read, replay, open for append, upload cache), in a
    // child of its own so its peak RSS is not stacked on this process's.
    const open = await runChild(['--open-run-state', stateDir, join(dir, 'bench.yaml')]);
    note(`openRunState ${open.ms} ms, peak RSS ${round(open.maxRssKiB / 1024)} MB`);

    emitResult('journal-replay', {
      jobs: measured.jobs,
      lines: gen.value.lines,
      journalMB: round(gen.value.bytes / 1024 / 1024),
      readMs: measured.readMs,
      replayMs: measured.replayMs,
      replayMedianMs: measured.replayMedianMs,
      readAndReplayMs: round(measured.readMs + measured.replayMs),
      openRunStateMs: open.ms,
      openRunStateMaxRssMB: round(open.maxRssKiB / 1024),
      generateMs: gen.ms,
      maxRssBeforeReadMB: round(rssBeforeKiB / 1024),
      replayMaxRssMB: round(replayMaxRssKiB / 1024),
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--generate') await generate(process.argv[3], process.argv[4]);
else if (process.argv[2] === '--open-run-state') await openOnce(process.argv[3], process.argv[4]);
else await main();
