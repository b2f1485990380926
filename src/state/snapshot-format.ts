import type { ReplayCheckpoint } from './replay.js';

/** File name of the state snapshot inside a run's state directory, beside the journal. */
export const SNAPSHOT_FILE = 'snapshot.jsonl';

/**
 * The snapshot format this runner writes and reads. A snapshot of another format (a newer runner's)
 * is not read: the journal is replayed whole instead, so it is never misread.
 */
export const SNAPSHOT_FORMAT = 2;

/**
 * Bytes at each end of the journal prefix a snapshot covers whose CRC-32 it records: enough to tell
 * its own journal from another one (another run, a restored backup, a journal cut and written again),
 * without reading the whole prefix, which is what the snapshot saves.
 */
export const PREFIX_CHECK_BYTES = 64 * 1024;

/** Which bytes of the journal a snapshot stands for: its first `bytes` bytes, `lines` lines. */
export interface JournalPosition {
  bytes: number;
  lines: number;
}

/** How a snapshot recognises the journal prefix it covers. */
export interface PrefixCheck extends JournalPosition {
  /** CRC-32 of the first min(bytes, PREFIX_CHECK_BYTES) bytes: the header line names pipeline and run. */
  headCrc32: number;
  /** CRC-32 of the last min(bytes, PREFIX_CHECK_BYTES) bytes of the prefix, which end with a newline. */
  tailCrc32: number;
}

/**
 * The first line of a snapshot file. Then one line per job, in the replay's order: its `JobSummary`
 * (JSON), a tab, and its whole `JobState` (JSON; `JSON.stringify` escapes every tab inside a string,
 * so the first tab ends the summary). A reader parses the summaries only and reads a job's whole state
 * from the file when it is used (src/state/stored-job.ts). Then a {@link SnapshotEnd} line.
 * (Format 1, the first release's, held the whole state alone.)
 */
export interface SnapshotHead {
  type: 'snapshot';
  format: number;
  /** When it was written (clock ms); for people reading the file. */
  at: number;
  journal: PrefixCheck;
  /** The replay of the prefix, apart from its jobs (see `ReplayCheckpoint`). */
  version: number;
  header?: ReplayCheckpoint['header'];
  runs: ReplayCheckpoint['runs'];
  lineWarnings: string[];
  unknownTypes: ReplayCheckpoint['unknownTypes'];
  jobs: number;
}

/**
 * The last line: present only in a snapshot written to its end. `crc32` covers every byte before this
 * line, so a snapshot cut short or damaged anywhere is told apart from a whole one.
 */
export interface SnapshotEnd {
  type: 'snapshot-end';
  jobs: number;
  bytes: number;
  crc32: number;
}

/** Why a snapshot file was not used (it is then ignored and the journal replayed whole). */
export class SnapshotProblem extends Error {
  override readonly name = 'SnapshotProblem';
}

/** Checks the parsed first line of a snapshot; throws a {@link SnapshotProblem} saying what is wrong. */
export function checkSnapshotHead(value: unknown): SnapshotHead {
  const head = value as Partial<SnapshotHead> | null;
  if (typeof head !== 'object' || head === null || head.type !== 'snapshot') {
    throw new SnapshotProblem('its first line is not a snapshot header');
  }
  if (head.format !== SNAPSHOT_FORMAT) {
    throw new SnapshotProblem(
      `it has format ${JSON.stringify(head.format)}; this runner reads format ${SNAPSHOT_FORMAT}`,
    );
  }
  const journal = head.journal;
  const counts = [journal?.bytes, journal?.lines, journal?.headCrc32, journal?.tailCrc32, head.jobs];
  if (
    !counts.every((n) => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0) ||
    typeof head.version !== 'number' ||
    !Array.isArray(head.runs) ||
    !Array.isArray(head.lineWarnings) ||
    !Array.isArray(head.unknownTypes)
  ) {
    throw new SnapshotProblem('its header line is incomplete');
  }
  return head as SnapshotHead;
}

/** Checks the parsed last line against what was read; throws a {@link SnapshotProblem}. */
export function checkSnapshotEnd(value: unknown, read: { jobs: number; bytes: number; crc32: number }): void {
  const end = value as Partial<SnapshotEnd> | null;
  if (typeof end !== 'object' || end === null || end.type !== 'snapshot-end') {
    throw new SnapshotProblem('it ends before its last line (a write cut short)');
  }
  if (end.jobs !== read.jobs || end.bytes !== read.bytes || end.crc32 !== read.crc32) {
    throw new SnapshotProblem(
      `its content does not match its checksum (expected ${String(end.jobs)} jobs in ${String(end.bytes)} bytes, CRC-32 ${String(end.crc32)}; read ${read.jobs} jobs in ${read.bytes} bytes, CRC-32 ${read.crc32})`,
    );
  }
}
