import { read } from 'node:fs';
import { promisify } from 'node:util';
import { crc32 } from 'node:zlib';
import type { JobState } from './job-state.js';
import { createLineWindow } from './line-window.js';
import type { ReplayCheckpoint } from './replay.js';
import { checkJobSummary, StoredJobState, type SnapshotFile } from './stored-job.js';
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
 * Reads and checks a snapshot held in an open file, as the folder's `readSnapshot` does, with the check that
 * it stands for the records it names given by its backend: `checkJournal` throws a
 * {@link SnapshotProblem} when they are not there (the folder compares the journal file's bytes,
 * PostgreSQL its rows). It is called before any job is read. The file is closed on failure, and on
 * success once no job refers to it.
 *
 * `chunks`, when given, are the file's bytes from its start as they are being written into it, each
 * of whole lines (a backend that copies the snapshot in reads it while the rest is still coming); by
 * default they are read from the file.
 */
export async function readSnapshotFrom(
  file: SnapshotFile,
  checkJournal: (journal: SnapshotHead['journal']) => Promise<void>,
  chunks: AsyncIterable<Buffer> = readLineChunks(file.fd),
): Promise<LoadedSnapshot> {
  try {
    const loaded = await readOpenSnapshot(file, checkJournal, chunks);
    if (loaded.checkpoint.jobs.size === 0) file.close();
    return loaded;
  } catch (error) {
    // The jobs made of it are dropped with the error: nothing reads the file again.
    file.close();
    throw error;
  }
}

const readAt = promisify(read);

/**
 * The file's bytes from its start, as buffers of whole lines (a last one without its newline comes
 * alone, at the end), each valid until the next is asked for (`createLineWindow`). (A stream would
 * close the descriptor the jobs keep reading.)
 */
async function* readLineChunks(fd: number): AsyncGenerator<Buffer> {
  const lineWindow = createLineWindow();
  let position = 0;
  for (;;) {
    const { buffer, offset, length } = lineWindow.target();
    const { bytesRead } = await readAt(fd, buffer, offset, length, position);
    if (bytesRead === 0) {
      const rest = lineWindow.rest();
      if (rest !== undefined) yield rest;
      return;
    }
    position += bytesRead;
    const lines = lineWindow.lines(bytesRead);
    if (lines !== undefined) yield lines;
  }
}

async function readOpenSnapshot(
  file: SnapshotFile,
  checkJournal: (journal: SnapshotHead['journal']) => Promise<void>,
  chunks: AsyncIterable<Buffer>,
): Promise<LoadedSnapshot> {
  let head: SnapshotHead | undefined;
  const jobs = new Map<string, JobState>();
  let crc = 0;
  let ended = false;
  let unterminated = false;
  /** Offset in the file of the first byte of `data`. */
  let dataOffset = 0;
  // Lines are read by their offsets in `data`, and the checksum taken over each chunk at once: a
  // Buffer per line cost ~0.2 s of a 100,000-job snapshot's reading in allocation alone.
  for await (const data of chunks) {
    let start = 0;
    let unsummed = 0;
    for (;;) {
      const end = data.indexOf(NEWLINE, start);
      if (end === -1) break;
      if (ended) throw new SnapshotProblem('it has lines after its end line');
      if (head === undefined) {
        head = checkSnapshotHead(parseJson(data, start, end));
        // Before reading its jobs: a snapshot of another journal (or of a longer one) is not read on.
        await checkJournal(head.journal);
      } else if (jobs.size === head.jobs) {
        // The end line: its checksum covers every byte before it.
        crc = crc32(data.subarray(unsummed, start), crc);
        unsummed = end + 1;
        checkSnapshotEnd(parseJson(data, start, end), {
          jobs: jobs.size,
          bytes: dataOffset + start,
          crc32: crc,
        });
        ended = true;
      } else {
        addJob(jobs, data, start, end, dataOffset + start, file);
      }
      start = end + 1;
    }
    if (unsummed < start) crc = crc32(data.subarray(unsummed, start), crc);
    // Only the last chunk can end without a newline.
    unterminated = start < data.length;
    dataOffset += data.length;
  }
  if (unterminated || !ended || head === undefined) {
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

const NEWLINE = 0x0a;

/** The JSON of `data`'s bytes from `start` to `end`. */
function parseJson(data: Buffer, start: number, end: number): unknown {
  try {
    return JSON.parse(data.toString('utf8', start, end));
  } catch {
    throw new SnapshotProblem('a line of it is not JSON (a damaged file)');
  }
}

/** A job line: its summary, a tab, its whole state, which stays in the file (see `SnapshotHead`). */
function addJob(
  jobs: Map<string, JobState>,
  data: Buffer,
  start: number,
  end: number,
  offset: number,
  file: SnapshotFile,
): void {
  const tab = data.indexOf(TAB, start);
  const summary = tab === -1 || tab > end ? undefined : checkJobSummary(parseJson(data, start, tab));
  // The whole state is checked when it is read; its bytes are covered by the checksum already.
  if (summary === undefined || jobs.has(summary.id) || data[tab + 1] !== OPEN_BRACE || tab + 1 >= end) {
    throw new SnapshotProblem(`job line ${jobs.size + 1} of it is not a job state`);
  }
  jobs.set(summary.id, new StoredJobState(summary, file, offset + tab + 1 - start, end - tab - 1));
}

const TAB = 0x09;
const OPEN_BRACE = 0x7b;
