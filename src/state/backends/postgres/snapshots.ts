import { openSync, readSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { ClientBase } from 'pg';
import { RunnerError } from '../../../errors.js';
import { PRIVATE_FILE_MODE } from '../../../file-modes.js';
import { createLineWindow } from '../../line-window.js';
import { readSnapshotFrom, type LoadedSnapshot } from '../../read-snapshot.js';
import { SnapshotProblem, type PrefixCheck } from '../../snapshot-format.js';
import { SnapshotFile } from '../../stored-job.js';
import { serializeSnapshot, type SnapshotContent } from '../../write-snapshot.js';
import { copyOutValues } from './copy-out.js';
import { FENCE_LOCK, type PostgresLease, type RunKey } from './lease.js';

/**
 * Bytes per row of `runner_snapshot_parts` (whole lines, so about this): bounded memory when a
 * snapshot is stored, few statements.
 */
const PART_BYTES = 1024 * 1024;

/** The records a PostgreSQL snapshot stands for: the run's records up to `lastSeq`, `records` of them. */
export interface SnapshotCover {
  lastSeq: string;
  records: number;
}

/**
 * Stores a run's snapshot in the database: the same text the folder's `snapshot.jsonl` holds
 * (`serializeSnapshot`), in parts of whole lines of about a megabyte, replacing the run's previous one
 * in one transaction, so a reader sees the old snapshot or the new one, whole. Fenced like a record:
 * the transaction first locks the lease row (`FENCE_LOCK`: never in the heartbeat's way) and goes on only while it still carries
 * this process's token, unexpired; a lost lease writes no snapshot. Its header's `journal` names the records it
 * stands for: `bytes` is the sequence number of the last, `lines` their count, and the two CRC-32s
 * are of the run's first record (its header, naming pipeline, run and start) and of that last one.
 */
export async function writePostgresSnapshot(
  client: ClientBase,
  run: RunKey,
  lease: PostgresLease,
  cover: SnapshotCover,
  content: SnapshotContent,
): Promise<void> {
  const key = [run.pipeline, run.runId];
  await client.query('BEGIN');
  try {
    const { rowCount } = await client.query(
      `SELECT 1 FROM runner_leases WHERE pipeline = $1 AND run_id = $2 AND token = $3 AND NOT released
          AND expires_at > clock_timestamp() ${FENCE_LOCK}`,
      [...key, lease.token],
    );
    if (rowCount !== 1) {
      throw new RunnerError(
        'STATE_LOCKED',
        `this runner's lease on run "${run.runId}" (token ${lease.token}) expired or was taken over, so no snapshot was stored`,
      );
    }
    const journal = await readCoverCheck(client, run, cover);
    if (journal === undefined) {
      throw new Error(
        `the run has no record number ${cover.lastSeq}, the last one the snapshot would stand for`,
      );
    }
    if (journal.recordsUpToLast !== cover.records) {
      // Other machines share this run (issue 17.4): this process's state is not the whole run's, so
      // a snapshot of it would hide their records. None is stored; the records stay the truth.
      await client.query('ROLLBACK');
      return;
    }
    await client.query('DELETE FROM runner_snapshot_parts WHERE pipeline = $1 AND run_id = $2', key);
    let parts = 0;
    let bytes = 0;
    for (const part of inLineParts(serializeSnapshot(journal, content))) {
      await client.query(
        'INSERT INTO runner_snapshot_parts (pipeline, run_id, part, data) VALUES ($1, $2, $3, $4)',
        [...key, parts++, part.toString('utf8')],
      );
      bytes += part.length;
    }
    await client.query(
      `INSERT INTO runner_snapshots (pipeline, run_id, last_seq, records, parts, bytes, lease_token, holder)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (pipeline, run_id) DO UPDATE SET last_seq = EXCLUDED.last_seq, records = EXCLUDED.records,
         parts = EXCLUDED.parts, bytes = EXCLUDED.bytes, lease_token = EXCLUDED.lease_token,
         holder = EXCLUDED.holder, written_at = clock_timestamp()`,
      [...key, cover.lastSeq, cover.records, parts, bytes, lease.token, lease.holder],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * The run's snapshot, checked whole before it is used (as the folder's is: format, every job line,
 * the end line's length and CRC-32), and checked against the run's records: they must still hold the
 * record at its last sequence number, and the same first and last record. Undefined when the run has
 * none; a {@link SnapshotProblem} saying what is wrong otherwise.
 *
 * The parts are copied into a temporary file (0600, removed from its folder at once: it lives while
 * the process holds it open) and read as they come, as the folder's snapshot is: the jobs keep only
 * their summaries in memory and read their whole states from the file when used. A 100,000-job run is
 * ~130 MB of snapshot, which the resumed apply's memory could not also hold.
 */
export async function loadPostgresSnapshot(
  client: ClientBase,
  run: RunKey,
): Promise<(LoadedSnapshot & { cover: SnapshotCover }) | undefined> {
  const key = [run.pipeline, run.runId];
  const { rows } = await client.query<{ last_seq: string; records: string; parts: number; bytes: string }>(
    `SELECT last_seq::text AS last_seq, records::text AS records, parts, bytes::text AS bytes
       FROM runner_snapshots WHERE pipeline = $1 AND run_id = $2`,
    key,
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  const cover: SnapshotCover = { lastSeq: row.last_seq, records: Number(row.records) };
  // Read before the parts: the connection then streams them without a query in between.
  const actual = await readCoverCheck(client, run, cover);
  const file = await openTempFile(run, row.last_seq);
  const copy = copyParts(client, run, file.fd, row.parts, Number(row.bytes));
  let loaded: LoadedSnapshot;
  try {
    loaded = await readSnapshotFrom(
      file,
      (journal) => {
        if (String(journal.bytes) !== cover.lastSeq || journal.lines !== cover.records) {
          throw new SnapshotProblem(
            `its header stands for ${journal.lines} records up to number ${journal.bytes}; its row for ${cover.records} up to ${cover.lastSeq}`,
          );
        }
        if (actual === undefined) {
          throw new SnapshotProblem(
            `it stands for the records up to number ${cover.lastSeq}, which the run's records do not hold`,
          );
        }
        if (actual.headCrc32 !== journal.headCrc32 || actual.tailCrc32 !== journal.tailCrc32) {
          throw new SnapshotProblem('the run does not start or end with the records it was taken of');
        }
        if (actual.recordsUpToLast !== cover.records) {
          throw new SnapshotProblem(
            `it stands for ${cover.records} records up to number ${cover.lastSeq}; the run has ${actual.recordsUpToLast} there (another machine's, stored meanwhile)`,
          );
        }
        return Promise.resolve();
      },
      copy.chunks,
    );
  } finally {
    // The copy runs to its end whatever the reader made of it: the connection is free again after.
    await copy.done.catch(() => undefined);
  }
  await copy.done;
  return { ...loaded, cover };
}

/**
 * The check values of the run's records up to `cover.lastSeq` (see {@link writePostgresSnapshot}), or
 * undefined when it has no record of that number. Like the folder's check of a journal's two ends, it
 * reads the first and the last record only, not all of them (which is what a snapshot saves): a
 * record removed from the middle by hand goes unnoticed, as a line cut from the middle of a journal
 * file does. It also counts the records up to the last (an index-only count, no record read): several
 * machines append to a shared run, and a record another machine stored below `cover.lastSeq` that the
 * writer never replayed (or that committed after the snapshot) makes the count differ from
 * `cover.records`, so such a snapshot is never written, or never trusted.
 */
async function readCoverCheck(
  client: ClientBase,
  run: RunKey,
  cover: SnapshotCover,
): Promise<(PrefixCheck & { recordsUpToLast: number }) | undefined> {
  const { rows } = await client.query<{ first: string | null; last: string | null; count: string }>(
    `SELECT (SELECT record FROM runner_records WHERE pipeline = $1 AND run_id = $2 ORDER BY seq LIMIT 1) AS first,
            (SELECT record FROM runner_records WHERE pipeline = $1 AND run_id = $2 AND seq = $3) AS last,
            (SELECT count(*) FROM runner_records WHERE pipeline = $1 AND run_id = $2 AND seq <= $3)::text AS count`,
    [run.pipeline, run.runId, cover.lastSeq],
  );
  const row = rows[0];
  if (row?.first == null || row.last == null) return undefined;
  return {
    bytes: Number(cover.lastSeq),
    lines: cover.records,
    headCrc32: crc32(row.first),
    tailCrc32: crc32(row.last),
    recordsUpToLast: Number(row.count),
  };
}

/** An empty temporary file (0600), already unlinked: it lives while the process holds it open. */
async function openTempFile(run: RunKey, lastSeq: string): Promise<SnapshotFile> {
  const folder = await mkdtemp(join(tmpdir(), 'runner-snapshot-'));
  const path = join(folder, 'snapshot.jsonl');
  let fd: number;
  try {
    fd = openSync(path, 'wx+', PRIVATE_FILE_MODE);
  } finally {
    // Gone from the folder at once: nothing is left behind whatever happens to the process.
    try {
      unlinkSync(path);
    } catch {
      // Not created: the error above says why.
    }
    rmSync(folder, { recursive: true, force: true });
  }
  return new SnapshotFile(
    `the state snapshot of run "${run.runId}" of pipeline "${run.pipeline}" (records up to ${lastSeq})`,
    fd,
  );
}

/**
 * Copies the snapshot's parts into the file, in order, as the database sends them (`COPY`, so their
 * bytes are never decoded into strings), and hands out the file's bytes as whole lines as they arrive
 * (`chunks`): the reader checks and parses them while the rest is still coming, with one buffer
 * whatever the snapshot's size. `done` settles once the copy ended, rejecting with a
 * {@link SnapshotProblem} when parts or bytes are missing.
 */
function copyParts(
  client: ClientBase,
  run: RunKey,
  fd: number,
  parts: number,
  bytes: number,
): { chunks: AsyncGenerator<Buffer>; done: Promise<void> } {
  let written = 0;
  let ended = false;
  // Set once the reader stopped: it closes the file, whose descriptor may then be another file's.
  let stopped = false;
  let wake: (() => void) | undefined;
  const signal = () => {
    wake?.();
    wake = undefined;
  };
  const done = copyOutValues(
    client,
    `SELECT data FROM runner_snapshot_parts WHERE pipeline = ${client.escapeLiteral(run.pipeline)}
        AND run_id = ${client.escapeLiteral(run.runId)} ORDER BY part`,
    (piece) => {
      if (stopped) return;
      for (let at = 0; at < piece.length;) at += writeSync(fd, piece, at, piece.length - at, written + at);
      written += piece.length;
      signal();
    },
  )
    .then((rows) => {
      if (rows !== parts)
        throw new SnapshotProblem(`it has ${rows} of the ${parts} parts it was written with`);
      if (written !== bytes) throw new SnapshotProblem(`it holds ${written} bytes, not the ${bytes} written`);
    })
    .finally(() => {
      ended = true;
      signal();
    });
  // Awaited by the caller later: a failure before then is not an unhandled rejection.
  done.catch(() => undefined);
  async function* chunks(): AsyncGenerator<Buffer> {
    const lineWindow = createLineWindow();
    let position = 0;
    try {
      yield* follow();
    } finally {
      stopped = true;
    }
    async function* follow(): AsyncGenerator<Buffer> {
      for (;;) {
        if (position === written) {
          if (ended) {
            await done;
            const rest = lineWindow.rest();
            if (rest !== undefined) yield rest;
            return;
          }
          await new Promise<void>((resolve) => (wake = resolve));
          continue;
        }
        const { buffer, offset, length } = lineWindow.target();
        const read = readSync(fd, buffer, offset, Math.min(length, written - position), position);
        position += read;
        const lines = lineWindow.lines(read);
        if (lines !== undefined) yield lines;
      }
    }
  }
  return { chunks: chunks(), done };
}

/**
 * Regroups the snapshot's pieces (each whole lines) into parts of whole lines, each at most
 * {@link PART_BYTES} unless one line alone is longer: a part is valid UTF-8 text on its own.
 */
function* inLineParts(pieces: Iterable<Buffer>): Generator<Buffer> {
  let held: Buffer[] = [];
  let size = 0;
  const take = (): Buffer => {
    const part = Buffer.concat(held, size);
    held = [];
    size = 0;
    return part;
  };
  for (const piece of pieces) {
    let start = 0;
    while (size + piece.length - start > PART_BYTES) {
      const cut = piece.lastIndexOf(NEWLINE, start + PART_BYTES - size - 1);
      if (cut >= start) {
        held.push(piece.subarray(start, cut + 1));
        size += cut + 1 - start;
        start = cut + 1;
      } else if (size === 0) {
        // One line longer than a part: a part of its own.
        const end = piece.indexOf(NEWLINE, start);
        const stop = end === -1 ? piece.length : end + 1;
        held.push(piece.subarray(start, stop));
        size += stop - start;
        start = stop;
      }
      if (size > 0) yield take();
    }
    if (start < piece.length) {
      held.push(piece.subarray(start));
      size += piece.length - start;
    }
  }
  if (size > 0) yield take();
}

const NEWLINE = 0x0a;
