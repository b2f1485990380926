import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import fc from 'fast-check';
import { mkdtemp, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ReplayResult } from '../../../src/state/replay.js';
import { replayJournalFile } from '../../../src/state/backends/folder/replay-run-journal.js';
import { replayRunJournal } from '../../../src/state/backends/folder/replay-run-journal.js';
import { SNAPSHOT_FILE } from '../../../src/state/snapshot-format.js';
import { buildReportData } from '../../../src/report/report-data.js';
import { sumBudgetedCredits, sumChargedCredits, type JobState } from '../../../src/state/job-state.js';
import { buildStatusView } from '../../../src/state/status-view.js';
import { viewJobState } from '../../../src/state/stored-job.js';
import { writeSnapshot } from '../../../src/state/backends/folder/snapshot-file.js';

let dir: string;
let journalPath: string;
let snapshotPath: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'runner-snapshot-'));
  journalPath = join(dir, 'journal.jsonl');
  snapshotPath = join(dir, SNAPSHOT_FILE);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const hash = (n: number) => n.toString(16).padStart(64, '0');

/**
 * A journal as the executor writes it: a header, runs, jobs that succeed, retry, fail, get deferred,
 * are replaced (their downloads superseded), lose an answer; plus a record of a newer runner's type
 * and an over-long line, which a replay skips with warnings.
 */
function realisticJournal(jobs: number): string[] {
  const lines: object[] = [
    { type: 'journal', at: 1, version: 2, pipeline: 'p', runId: 'r' },
    { type: 'run', at: 2, runId: 'r', pipeline: 'p', pid: 10, manifestFile: '/m.yaml' },
  ];
  for (let i = 0; i < jobs; i++) {
    const id = `job-${i}`;
    const at = 100 + i * 1000;
    const payload = { kind: 'image', model: 'm', prompt: `a fox ${i}`, params: { n: i } };
    lines.push({
      type: 'intent',
      at,
      id,
      attempt: 1,
      idempotencyKey: `k${i}`,
      payloadHash: hash(i),
      payload,
    });
    lines.push({ type: 'created', at: at + 1, id, attempt: 1, jobId: `s${i}`, creditCost: 4 });
    lines.push({ type: 'status', at: at + 2, id, attempt: 1, status: 'Processing', progress: 40 });
    switch (i % 5) {
      case 0:
        lines.push({ type: 'completed', at: at + 3, id, attempt: 1, resultUrls: [`https://r/${i}.png`] });
        lines.push({
          type: 'downloaded',
          at: at + 4,
          id,
          url: `https://r/${i}.png`,
          file: `/out/${id}.png`,
          bytes: 10 + i,
          sha256: hash(i + 1),
        });
        break;
      case 1:
        lines.push({
          type: 'failed',
          at: at + 3,
          id,
          attempt: 1,
          failureKind: 'x',
          error: 'e',
          willRetry: true,
        });
        lines.push({ type: 'intent', at: at + 4, id, attempt: 2, payloadHash: hash(i) });
        lines.push({ type: 'uncertain', at: at + 5, id, attempt: 2, reason: 'lost answer' });
        break;
      case 2:
        lines.push({ type: 'deferred', at: at + 3, id, attempt: 1, failureKind: 'busy', notBefore: at + 99 });
        lines.push({ type: 'newer-runner-record', at: at + 4, id });
        break;
      case 3:
        lines.push({ type: 'completed', at: at + 3, id, attempt: 1, resultUrls: [`https://r/${i}.png`] });
        lines.push({
          type: 'downloaded',
          at: at + 4,
          id,
          url: `https://r/${i}.png`,
          file: `/o/${i}`,
          bytes: 1,
          sha256: 'a',
        });
        lines.push({ type: 'intent', at: at + 5, id, attempt: 2, payloadHash: hash(i + 7) });
        lines.push({
          type: 'create-failed',
          at: at + 6,
          id,
          attempt: 2,
          code: 'E',
          message: 'm',
          final: true,
        });
        break;
      default:
        lines.push({
          type: 'failed',
          at: at + 3,
          id,
          attempt: 1,
          failureKind: 'y',
          error: 'no',
          willRetry: false,
        });
    }
    if (i === 2)
      lines.push({ type: 'run', at: at + 9, runId: 'r', pipeline: 'p', pid: 11, manifestFile: '/m.yaml' });
  }
  const text = lines.map((line) => JSON.stringify(line));
  text.splice(5, 0, JSON.stringify({ type: 'failed', error: 'x'.repeat(1024 * 1024 + 10) }));
  return text;
}

/** The replay as every command sees it: jobs in order, warnings, runs, version, header. */
function observable(replay: ReplayResult) {
  return {
    jobs: [...replay.jobs.entries()].map(([id, job]) => [id, viewJobState(job)]),
    warnings: replay.warnings,
    runs: replay.runs,
    version: replay.version,
    header: replay.header,
  };
}

/** Writes the snapshot of the journal as it is now (as read: from the snapshot before it, if any). */
async function snapshotJournal(at: number): Promise<void> {
  const reading = await replayRunJournal(journalPath);
  await writeSnapshot(journalPath, {
    position: reading.end,
    jobs: reading.replay.jobs,
    meta: reading.checkpoint,
    at,
  });
}

/** Writes the first `covered` lines, snapshots them, then writes the whole journal (the run went on). */
async function snapshotAfter(lines: readonly string[], covered: number, rest = ''): Promise<void> {
  await writeFile(
    journalPath,
    lines
      .slice(0, covered)
      .map((line) => `${line}\n`)
      .join(''),
  );
  await snapshotJournal(5);
  await writeFile(journalPath, `${lines.map((line) => `${line}\n`).join('')}${rest}`);
}

describe('state snapshots (#8.3)', () => {
  it('replays snapshot + tail to exactly what the whole journal gives, and reads only the tail', async () => {
    const lines = realisticJournal(40);
    await snapshotAfter(lines, 120, '{"type":"status","id":"job-');
    expect((await stat(snapshotPath)).mode & 0o777).toBe(0o600);
    const withSnapshot = await replayRunJournal(journalPath);
    expect(withSnapshot.snapshot).toMatchObject({ lines: 120 });
    const full = await replayJournalFile(journalPath);
    expect(observable(withSnapshot.replay)).toEqual(observable(full));
    // The realistic journal exercised every kind of warning, the torn last line included.
    expect(full.warnings).toEqual([
      expect.stringMatching(/^Skipped line 6 /),
      expect.stringMatching(/torn last line/),
      expect.stringMatching(/unknown type "newer-runner-record" \(first at line \d+\)/),
    ]);
    expect(full.runs).toHaveLength(2);
  });

  it('gives the same state wherever the snapshot was taken and however the tail was cut (property)', async () => {
    const lines = realisticJournal(12);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: lines.length }),
        fc.string({ maxLength: 12 }),
        async (covered, torn) => {
          await rm(snapshotPath, { force: true });
          await snapshotAfter(lines, covered, torn.replace(/\n/g, ''));
          const full = await replayJournalFile(journalPath).catch((error: unknown) => error);
          const withSnapshot = await replayRunJournal(journalPath).catch((error: unknown) => error);
          if (full instanceof Error) {
            expect(withSnapshot).toEqual(full);
            return;
          }
          expect((withSnapshot as Awaited<ReturnType<typeof replayRunJournal>>).snapshot).toBeDefined();
          expect(observable((withSnapshot as Awaited<ReturnType<typeof replayRunJournal>>).replay)).toEqual(
            observable(full as ReplayResult),
          );
        },
      ),
      { numRuns: 40 },
    );
  });

  it('writes a snapshot from one read from a snapshot: copied jobs and changed ones replay the same (property)', async () => {
    const lines = realisticJournal(12);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: lines.length }),
        fc.integer({ min: 1, max: lines.length }),
        async (a, b) => {
          const [first, second] = a <= b ? [a, b] : [b, a];
          await rm(snapshotPath, { force: true });
          await snapshotAfter(lines, first);
          // The next snapshot is written from a state read from the first: jobs no record after it
          // touched are still on disk (copied as stored), the others were read and changed.
          await snapshotAfter(lines, second);
          const withSnapshot = await replayRunJournal(journalPath);
          expect(withSnapshot.snapshot?.lines).toBe(second);
          expect(observable(withSnapshot.replay)).toEqual(observable(await replayJournalFile(journalPath)));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('copies jobs still on disk into the next snapshot whole when they span many reads of the file', async () => {
    // ~3 MB of job states: the first snapshot is read back through several windows, and the second
    // is written from jobs still on disk, each copied before the window moves on.
    const lines = realisticJournal(600).map((line) =>
      line.replace(/"a fox (\d+)"/, (_, n) => `"a fox ${n} ${'x'.repeat(4000)}"`),
    );
    await snapshotAfter(lines, lines.length);
    await writeFile(journalPath, `${lines.map((line) => `${line}\n`).join('')}`);
    const firstSnapshot = await stat(snapshotPath);
    expect(firstSnapshot.size).toBeGreaterThan(2 * 1024 * 1024);
    await snapshotJournal(6);
    const withSnapshot = await replayRunJournal(journalPath);
    expect(withSnapshot.snapshot?.lines).toBe(lines.length);
    expect(observable(withSnapshot.replay)).toEqual(observable(await replayJournalFile(journalPath)));
  });

  it('keeps the jobs of a snapshot on disk until used, from the file read even once another replaced it', async () => {
    const lines = realisticJournal(10);
    await snapshotAfter(lines, lines.length);
    const full = await replayJournalFile(journalPath);
    const reading = await replayRunJournal(journalPath);
    const jobs = [...reading.replay.jobs.values()];
    expect(jobs.every((job) => job.storedSummary?.() !== undefined)).toBe(true);
    // Budgets and statuses come from the summaries.
    for (const job of jobs) {
      const replayed = full.jobs.get(job.id)!;
      expect([job.status, sumBudgetedCredits(job), sumChargedCredits(job)]).toEqual([
        replayed.status,
        sumBudgetedCredits(replayed),
        sumChargedCredits(replayed),
      ]);
    }
    // A later snapshot (other content, other offsets) renamed over the path it was read from.
    await writeFile(journalPath, `${lines.map((line) => `${line}\n`).join('')}${lines[1]}\n`);
    await snapshotJournal(6);
    // A view reads the state and keeps nothing; reading attempts keeps it.
    expect(jobs.map(viewJobState)).toEqual([...full.jobs.values()]);
    expect(jobs.every((job) => job.storedSummary?.() !== undefined)).toBe(true);
    expect(jobs.map((job) => job.attempts)).toEqual([...full.jobs.values()].map((job) => job.attempts));
    expect(jobs.some((job) => job.storedSummary?.() !== undefined)).toBe(false);
  });

  it('reads a job whose state is longer than a read (attempts with long errors: 1.8 MB on one line)', async () => {
    const lines = [JSON.stringify({ type: 'journal', at: 1, version: 2, pipeline: 'p', runId: 'r' })];
    for (let attempt = 1; attempt <= 3; attempt++) {
      lines.push(JSON.stringify({ type: 'intent', at: 2, id: 'long', attempt, payloadHash: hash(1) }));
      lines.push(JSON.stringify({ type: 'created', at: 3, id: 'long', attempt, jobId: `s${attempt}` }));
      lines.push(
        JSON.stringify({
          type: 'failed',
          at: 4,
          id: 'long',
          attempt,
          failureKind: 'x',
          error: String(attempt).repeat(600_000),
          willRetry: attempt < 3,
        }),
      );
    }
    lines.push(...realisticJournal(3).slice(1));
    await snapshotAfter(lines, lines.length);
    expect((await stat(snapshotPath)).size).toBeGreaterThan(1_800_000);
    const reading = await replayRunJournal(journalPath);
    expect(reading.snapshot?.lines).toBe(lines.length);
    expect(observable(reading.replay)).toEqual(observable(await replayJournalFile(journalPath)));
    expect(reading.replay.jobs.get('long')?.attempts.map((attempt) => attempt.error?.length)).toEqual([
      600_000, 600_000, 600_000,
    ]);
  });

  it('gives `runner status` and the report what the whole journal gives, from a snapshot, keeping nothing read', async () => {
    const lines = realisticJournal(15);
    await snapshotAfter(lines, lines.length);
    const full = (await replayJournalFile(journalPath)).jobs;
    const stored = (await replayRunJournal(journalPath)).replay.jobs;
    expect([...stored.values()].every((job) => job.storedSummary?.() !== undefined)).toBe(true);
    expect(buildStatusView(stored)).toEqual(buildStatusView(full));
    const report = (state: ReadonlyMap<string, JobState>) => [
      ...buildReportData({
        pipeline: 'p',
        runId: 'r',
        manifestFile: '/m.yaml',
        jobs: [...full.keys()].map((id) => ({
          id,
          kind: 'image' as const,
          model: 'm',
          params: {},
          matrixValues: {},
        })),
        state,
        now: new Date(0),
      }).entries,
    ];
    expect(report(stored)).toEqual(report(full));
    // Read for the views, not kept: the jobs are still on disk.
    expect([...stored.values()].every((job) => job.storedSummary?.() !== undefined)).toBe(true);
  });

  it('falls back to the whole journal, with a warning, from a snapshot torn at any byte (property)', async () => {
    const lines = realisticJournal(10);
    await snapshotAfter(lines, 30);
    const whole = await readFile(snapshotPath);
    const full = observable(await replayJournalFile(journalPath));
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: whole.length - 1 }), async (cut) => {
        await writeFile(snapshotPath, whole.subarray(0, cut));
        const reading = await replayRunJournal(journalPath);
        expect(reading.snapshot).toBeUndefined();
        const [warning, ...rest] = reading.replay.warnings;
        expect(warning).toMatch(
          /^Ignored the state snapshot .*snapshot\.jsonl: .*The whole journal was replayed/,
        );
        expect(observable({ ...reading.replay, warnings: rest })).toEqual(full);
      }),
      { numRuns: 60 },
    );
  });

  it('ignores a damaged snapshot whose JSON still parses (checksum), and says why', async () => {
    const lines = realisticJournal(10);
    await snapshotAfter(lines, 30);
    const text = await readFile(snapshotPath, 'utf8');
    // A job's credit cost changed on disk: the file is valid JSON, only the CRC-32 tells.
    await writeFile(snapshotPath, text.replace('"creditCost":4', '"creditCost":9'));
    const reading = await replayRunJournal(journalPath);
    expect(reading.snapshot).toBeUndefined();
    expect(reading.replay.warnings[0]).toMatch(/does not match its checksum/);
    expect(observable({ ...reading.replay, warnings: reading.replay.warnings.slice(1) })).toEqual(
      observable(await replayJournalFile(journalPath)),
    );
  });

  it('ignores a snapshot of another journal, of a longer one, or of an unknown format', async () => {
    const lines = realisticJournal(10);
    await snapshotAfter(lines, 30);
    const good = await readFile(snapshotPath, 'utf8');
    const expectIgnored = async (reason: RegExp) => {
      const reading = await replayRunJournal(journalPath);
      expect(reading.snapshot).toBeUndefined();
      expect(reading.replay.warnings[0]).toMatch(reason);
      expect(observable({ ...reading.replay, warnings: reading.replay.warnings.slice(1) })).toEqual(
        observable(await replayJournalFile(journalPath)),
      );
    };
    // The journal was cut back (a restored backup): shorter than the prefix the snapshot covers.
    await writeFile(
      journalPath,
      lines
        .slice(0, 20)
        .map((line) => `${line}\n`)
        .join(''),
    );
    await expectIgnored(/covers \d+ bytes of the journal, which holds fewer/);
    // Cut back and written again to past that length: other records where the snapshot's were
    // (of the same lengths, so only the checksum of the prefix's end tells them apart).
    const other = lines.map((line, index) =>
      index >= 20 && index < 30 ? line.replace('Processing', 'Processinx') : line,
    );
    expect(other.slice(20, 30)).not.toEqual(lines.slice(20, 30));
    await writeFile(journalPath, other.map((line) => `${line}\n`).join(''));
    await expectIgnored(/does not start with the records it was taken of/);
    await writeFile(journalPath, lines.map((line) => `${line}\n`).join(''));
    await writeFile(snapshotPath, good.replace('"format":2', '"format":99'));
    await expectIgnored(/format 99; this runner reads format 2/);
    await writeFile(snapshotPath, good);
    expect((await replayRunJournal(journalPath)).snapshot).toBeDefined();
  });

  it('replaces a snapshot atomically, leaving no temporary file, and overwrites one left by a kill', async () => {
    const lines = realisticJournal(6);
    await writeFile(`${snapshotPath}.tmp`, '{"type":"snapshot","format":1,"jo');
    await snapshotAfter(lines, 10);
    expect(existsSync(`${snapshotPath}.tmp`)).toBe(false);
    await truncate(journalPath, 0);
    await writeFile(journalPath, lines.map((line) => `${line}\n`).join(''));
    expect((await replayRunJournal(journalPath)).snapshot).toEqual({ bytes: expect.any(Number), lines: 10 });
  });
});
