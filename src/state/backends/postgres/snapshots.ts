import { closeSync, openSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { ClientBase } from 'pg';
import { RunnerError } from '../../../errors.js';
import { PRIVATE_FILE_MODE } from '../../../file-modes.js';
import { readSnapshotFrom, type LoadedSnapshot } from '../../read-snapshot.js';
import { SnapshotProblem, type PrefixCheck } from '../../snapshot-format.js';
import { SnapshotFile } from '../../stored-job.js';
import { serializeSnapshot, type SnapshotContent } from '../../write-snapshot.js';
import type { PostgresLease, RunKey } from './lease.js';

/**
 * Bytes per row of `runner_snapshot_parts` (whole lines, so about this): bounded memory on both
 * ends, few round trips.
 */
const PART_BYTES = 1024 * 1024;
/** Parts fetched per query when a snapshot is read (a result set is held whole by node-postgres). */
const PARTS_PER_READ = 8;

/** The records a PostgreSQL snapshot stands for: the run's records up to `lastSeq`, `records` of them. */
export interface SnapshotCover {
  lastSeq: string;
  records: number;
}

/**
 * Stores a run's snapshot in the database: the same text the folder's `snapshot.jsonl` holds
 * (`serializeSnapshot`), in parts of whole lines of about a megabyte, replacing the run's previous one in one transaction,
 * so a reader sees the old snapshot or the new one, whole. Fenced like a record: the transaction
 * first locks the lease row (`FOR SHARE`) and goes on only while it still carries this process's
 * token, unexpired; a lost lease writes no snapshot. Its header's `journal` names the records it
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
          AND expires_at > clock_timestamp() FOR SHARE`,
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
      throw new Error(`the run's records up to ${cover.lastSeq} are not ${cover.records} records`);
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
 * record at its last sequence number, as many records up to it as it says, and the same first and last
 * record. Undefined when the run has none; a {@link SnapshotProblem} saying what is wrong otherwise.
 *
 * The bytes are copied into a temporary file (0600, removed from its folder at once: it lives while
 * the process holds it open), read as the folder's snapshot is: the jobs keep only their summaries in
 * memory and read their whole states from the file when used. A 100,000-job run is ~100 MB of
 * snapshot, which the resumed apply's memory could not also hold.
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
  const file = await copyToTempFile(client, run, row.parts, Number(row.bytes), row.last_seq);
  const loaded = await readSnapshotFrom(file, async (journal) => {
    if (String(journal.bytes) !== cover.lastSeq || journal.lines !== cover.records) {
      throw new SnapshotProblem(
        `its header stands for ${journal.lines} records up to number ${journal.bytes}; its row for ${cover.records} up to ${cover.lastSeq}`,
      );
    }
    const actual = await readCoverCheck(client, run, cover);
    if (actual === undefined) {
      throw new SnapshotProblem(
        `it stands for ${cover.records} records up to number ${cover.lastSeq}, which the run's records do not hold`,
      );
    }
    if (actual.headCrc32 !== journal.headCrc32 || actual.tailCrc32 !== journal.tailCrc32) {
      throw new SnapshotProblem('the run does not start or end with the records it was taken of');
    }
  });
  return { ...loaded, cover };
}

/**
 * The check values of the run's records up to `cover.lastSeq` (see {@link writePostgresSnapshot}), or
 * undefined when there is no record with that number or the count differs.
 */
async function readCoverCheck(
  client: ClientBase,
  run: RunKey,
  cover: SnapshotCover,
): Promise<PrefixCheck | undefined> {
  const { rows } = await client.query<{ first: string | null; last: string | null; records: string }>(
    `SELECT (SELECT record FROM runner_records WHERE pipeline = $1 AND run_id = $2 ORDER BY seq LIMIT 1) AS first,
            (SELECT record FROM runner_records WHERE pipeline = $1 AND run_id = $2 AND seq = $3) AS last,
            (SELECT count(*) FROM runner_records WHERE pipeline = $1 AND run_id = $2 AND seq <= $3)::text AS records`,
    [run.pipeline, run.runId, cover.lastSeq],
  );
  const row = rows[0];
  if (row?.first == null || row.last == null || Number(row.records) !== cover.records) return undefined;
  return {
    bytes: Number(cover.lastSeq),
    lines: cover.records,
    headCrc32: crc32(row.first),
    tailCrc32: crc32(row.last),
  };
}

/** The snapshot's parts, in order, written to an unlinked temporary file held open. */
async function copyToTempFile(
  client: ClientBase,
  run: RunKey,
  parts: number,
  bytes: number,
  lastSeq: string,
): Promise<SnapshotFile> {
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
  const display = `the state snapshot of run "${run.runId}" of pipeline "${run.pipeline}" (records up to ${lastSeq})`;
  try {
    let written = 0;
    for (let from = 0; from < parts; from += PARTS_PER_READ) {
      const { rows } = await client.query<[string]>({
        text: `SELECT data FROM runner_snapshot_parts WHERE pipeline = $1 AND run_id = $2 AND part >= $3 AND part < $4
                ORDER BY part`,
        values: [run.pipeline, run.runId, from, from + PARTS_PER_READ],
        rowMode: 'array',
      });
      if (rows.length !== Math.min(PARTS_PER_READ, parts - from)) {
        throw new SnapshotProblem(`it has fewer parts than the ${parts} it was written with`);
      }
      for (const [text] of rows) {
        const data = Buffer.from(text, 'utf8');
        for (let at = 0; at < data.length;) at += writeSync(fd, data, at, data.length - at, written + at);
        written += data.length;
      }
    }
    if (written !== bytes) throw new SnapshotProblem(`it holds ${written} bytes, not the ${bytes} written`);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return new SnapshotFile(display, fd);
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
