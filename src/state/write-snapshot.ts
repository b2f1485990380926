import { crc32 } from 'node:zlib';
import { summarizeJob, type JobState } from './job-state.js';
import type { ReplayCheckpoint } from './replay.js';
import { StoredJobState } from './stored-job.js';
import {
  SNAPSHOT_FORMAT,
  type JournalPosition,
  type PrefixCheck,
  type SnapshotEnd,
  type SnapshotHead,
} from './snapshot-format.js';

/** Jobs serialized per write: a bounded string (a few hundred KB) whatever the run's size. */
const JOBS_PER_WRITE = 500;

/** What a snapshot stores: the replay of the journal's first `position` bytes and lines. */
export interface SnapshotContent {
  position: JournalPosition;
  jobs: ReadonlyMap<string, JobState>;
  meta: Omit<ReplayCheckpoint, 'jobs' | 'lines'>;
  /** Clock ms, stored for people reading the file. */
  at: number;
}

/**
 * The bytes of a snapshot of `content` (see `SnapshotHead`), in pieces of a few hundred KB: its header
 * line, its job lines, and its end line with the length and CRC-32 of everything before it. `journal`
 * says which records it stands for. The folder writes them to a file, PostgreSQL to rows; both are read
 * back by `readSnapshotFrom`. `jobs` must not change until the last piece is taken.
 */
export function* serializeSnapshot(journal: PrefixCheck, content: SnapshotContent): Generator<Buffer> {
  const head: SnapshotHead = {
    type: 'snapshot',
    format: SNAPSHOT_FORMAT,
    at: content.at,
    journal,
    version: content.meta.version,
    ...(content.meta.header === undefined ? {} : { header: content.meta.header }),
    runs: content.meta.runs,
    lineWarnings: content.meta.lineWarnings,
    unknownTypes: content.meta.unknownTypes,
    jobs: content.jobs.size,
  };
  let crc = 0;
  let bytes = 0;
  const sum = (buffer: Buffer): Buffer => {
    crc = crc32(buffer, crc);
    bytes += buffer.length;
    return buffer;
  };
  yield sum(Buffer.from(`${JSON.stringify(head)}\n`));
  const batch = new JobLines();
  for (const job of content.jobs.values()) {
    batch.add(job);
    if (batch.jobs === JOBS_PER_WRITE) yield sum(batch.take());
  }
  if (batch.jobs > 0) yield sum(batch.take());
  const end: SnapshotEnd = { type: 'snapshot-end', jobs: content.jobs.size, bytes, crc32: crc };
  yield Buffer.from(`${JSON.stringify(end)}\n`);
}

/**
 * Job lines as a snapshot holds them (see `SnapshotHead`): the summary, a tab, the whole state. A job
 * whose whole state is still in the snapshot being replaced is copied from there, not parsed.
 */
class JobLines {
  jobs = 0;
  private parts: Buffer[] = [];
  private text = '';

  add(job: JobState): void {
    this.jobs++;
    this.text += `${JSON.stringify(summarizeJob(job))}\t`;
    const stored = job instanceof StoredJobState ? job.storedText() : undefined;
    if (stored === undefined) {
      this.text += `${JSON.stringify(job)}\n`;
      return;
    }
    // Copied: the bytes are a view of the file's read window, which the next job's read reuses.
    this.parts.push(Buffer.from(this.text, 'utf8'), Buffer.from(stored));
    this.text = '\n';
  }

  take(): Buffer {
    this.parts.push(Buffer.from(this.text, 'utf8'));
    const buffer = Buffer.concat(this.parts);
    this.parts = [];
    this.text = '';
    this.jobs = 0;
    return buffer;
  }
}
