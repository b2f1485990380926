import { createReadStream } from 'node:fs';
import { crc32 } from 'node:zlib';
import type { JobState } from './job-state.js';
import { isSamePrefix, readPrefixCheck } from './journal-prefix.js';
import type { ReplayCheckpoint } from './replay.js';
import {
  checkSnapshotEnd,
  checkSnapshotHead,
  SnapshotProblem,
  type JournalPosition,
  type SnapshotHead,
} from './snapshot-format.js';

/** A snapshot that matched its journal: the replay of the prefix it covers, and where that ends. */
export interface LoadedSnapshot {
  checkpoint: ReplayCheckpoint;
  position: JournalPosition;
}

/**
 * Reads a state snapshot and checks it whole before it is used: its header (format), that the journal
 * still starts with the prefix it covers (length and CRC-32 of both ends), every job line, and its end
 * line (count, length, CRC-32 of everything before it). Undefined when there is no snapshot; a
 * {@link SnapshotProblem} saying what is wrong with any other. Streamed: never more than a chunk and
 * one line of text in memory besides the jobs.
 */
export async function readSnapshot(path: string, journalPath: string): Promise<LoadedSnapshot | undefined> {
  const stream = createReadStream(path, { highWaterMark: 1024 * 1024 });
  let head: SnapshotHead | undefined;
  const jobs = new Map<string, JobState>();
  let crc = 0;
  let bytes = 0;
  let ended = false;
  let carry: Buffer | undefined;
  const takeLine = (line: Buffer): void => {
    if (ended) throw new SnapshotProblem('it has lines after its end line');
    const value = parseJson(line);
    if (head !== undefined && jobs.size === head.jobs) {
      checkSnapshotEnd(value, { jobs: jobs.size, bytes, crc32: crc });
      ended = true;
      return;
    }
    crc = crc32(line, crc);
    crc = crc32(NEWLINE, crc);
    bytes += line.length + 1;
    if (head === undefined) head = checkSnapshotHead(value);
    else addJob(jobs, value);
  };
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let data = carry === undefined ? chunk : Buffer.concat([carry, chunk]);
      carry = undefined;
      let start = 0;
      for (;;) {
        const end = data.indexOf(0x0a, start);
        if (end === -1) break;
        const wasHead = head === undefined;
        takeLine(data.subarray(start, end));
        start = end + 1;
        // Before reading its jobs: a snapshot of another journal (or of a longer one) is not read on.
        if (wasHead && head !== undefined) await checkPrefix(head, journalPath);
      }
      if (start < data.length) carry = Buffer.from(data.subarray(start));
      data = Buffer.alloc(0);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  if (carry !== undefined || !ended || head === undefined) {
    throw new SnapshotProblem('it ends before its last line (a write cut short)');
  }
  return {
    checkpoint: {
      jobs,
      runs: head.runs,
      version: head.version,
      ...(head.header === undefined ? {} : { header: head.header }),
      lineWarnings: head.lineWarnings,
      unknownTypes: head.unknownTypes,
      lines: head.journal.lines,
    },
    position: { bytes: head.journal.bytes, lines: head.journal.lines },
  };
}

const NEWLINE = Buffer.from('\n');

async function checkPrefix(head: SnapshotHead, journalPath: string): Promise<void> {
  const journal = await readPrefixCheck(journalPath, head.journal);
  if (journal === undefined) {
    throw new SnapshotProblem(
      `it covers ${head.journal.bytes} bytes of the journal, which holds fewer (or not at a line's end)`,
    );
  }
  if (!isSamePrefix(journal, head.journal)) {
    throw new SnapshotProblem('the journal does not start with the records it was taken of');
  }
}

function parseJson(line: Buffer): unknown {
  try {
    return JSON.parse(line.toString('utf8'));
  } catch {
    throw new SnapshotProblem('a line of it is not JSON (a damaged file)');
  }
}

function addJob(jobs: Map<string, JobState>, value: unknown): void {
  const job = value as Partial<JobState> | null;
  if (
    typeof job !== 'object' ||
    job === null ||
    typeof job.id !== 'string' ||
    typeof job.payloadHash !== 'string' ||
    !Array.isArray(job.attempts) ||
    !Array.isArray(job.downloads) ||
    typeof job.status !== 'string' ||
    jobs.has(job.id)
  ) {
    throw new SnapshotProblem(`job line ${jobs.size + 1} of it is not a job state`);
  }
  shareStrings(job as JobState);
  jobs.set(job.id, job as JobState);
}

/**
 * A replay keeps one string where a job repeats a value (its payload hash in each attempt, a result
 * URL in its download); parsing makes two. Sharing them again saves ~150 bytes a job.
 */
function shareStrings(job: JobState): void {
  for (const attempt of job.attempts) {
    if (attempt.payloadHash === job.payloadHash) attempt.payloadHash = job.payloadHash;
  }
  const urls = job.attempts.at(-1)?.resultUrls;
  if (urls === undefined) return;
  for (const download of job.downloads) {
    const url = urls.find((candidate) => candidate === download.url);
    if (url !== undefined) download.url = url;
  }
}
