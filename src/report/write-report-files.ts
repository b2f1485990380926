import { mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../file-modes.js';
import { reportHtmlFormat } from './render-html.js';
import { junitFormat } from './render-junit.js';
import type { PiecewiseFormat } from './piecewise-text.js';
import { writeGridImages } from './grid-image.js';
import {
  readThumbnails,
  removeThumbnailTemporaries,
  THUMBNAIL_FOLDER,
  type ThumbnailLookup,
} from './thumbnails.js';
import type { ReportData, ReportEntry } from './report-data.js';
import {
  resultRowsOf,
  resultsCsvFormat,
  resultsIndexHeader,
  resultsJsonFormat,
  type ResultRow,
} from './results-index.js';

export interface ReportFiles {
  resultsJson: string;
  resultsCsv: string;
  report?: string;
  junit?: string;
  /** The grid images written beside the page (in `thumbnails/`), which it links. */
  gridImages?: string[];
  /**
   * The files that could not be written, each with the reason (their temporary files removed, any
   * earlier version left as it was). The others are written all the same.
   */
  failures: { file: string; message: string }[];
}

/**
 * Writes the results index (`results.json`, `results.csv` in `resultsDir`), and the HTML report and
 * JUnit XML when asked for (the page showing the thumbnails found in `resultsDir`, and linking the grid
 * images made there, see `writeGridImages`). Each file is written whole to a temporary name and renamed, so a reader
 * (or a crash) never sees half a file. All of them are written in one pass over the entries: making
 * an entry reads its job's state (from the state snapshot, for a job of an earlier apply), which for
 * 100,000 jobs took ~0.8 s a pass. (JUnit's totals come first, from the entries' statuses alone.)
 * A file that cannot be written (its folder is a file, the disk is full) does not stop the others: it
 * is left out, its temporary file removed, and named in `failures`.
 */
export async function writeReportFiles(
  data: ReportData,
  where: {
    resultsDir: string;
    reportFile?: string | undefined;
    junitFile?: string | undefined;
    /** The thumbnails the page shows, when not those in `<resultsDir>/thumbnails/` (a bucket's). */
    thumbnails?: ThumbnailLookup | undefined;
  },
  durationSeconds = 0,
): Promise<ReportFiles> {
  const { entries, ...header } = data;
  const files: ReportFiles = {
    resultsJson: join(where.resultsDir, 'results.json'),
    resultsCsv: join(where.resultsDir, 'results.csv'),
    failures: [],
  };
  const formats = new Map<string, PiecewiseFormat<JobPieces>>([
    [files.resultsJson, ofRows(resultsJsonFormat(resultsIndexHeader(header)))],
    [files.resultsCsv, ofRows(resultsCsvFormat(data.axes))],
  ]);
  if (where.reportFile !== undefined) {
    let thumbnails = where.thumbnails;
    if (thumbnails === undefined) {
      await removeThumbnailTemporaries(where.resultsDir);
      thumbnails = await readThumbnails(where.resultsDir);
    }
    const gridImages = await writeGridImages(data, where.resultsDir, thumbnails).catch((error: unknown) => {
      files.failures.push({ file: join(where.resultsDir, THUMBNAIL_FOLDER), message: errorText(error) });
      return [];
    });
    if (gridImages.length > 0) files.gridImages = gridImages.map((image) => image.file);
    const page = gridImages.length === 0 ? header : { ...header, gridImages };
    formats.set(where.reportFile, ofEntries(reportHtmlFormat(page, dirname(where.reportFile), thumbnails)));
  }
  if (where.junitFile !== undefined)
    formats.set(where.junitFile, ofEntries(junitFormat(data, durationSeconds)));
  let outputs: { file: string; format: PiecewiseFormat<JobPieces>; writer: WholeFileWriter }[] = [];
  const fail = async (file: string, error: unknown, writer?: WholeFileWriter) => {
    files.failures.push({ file, message: error instanceof Error ? error.message : String(error) });
    outputs = outputs.filter((output) => output.file !== file);
    await writer?.discard();
  };
  /** Runs `step` on every file still written; a file whose step fails is dropped. */
  const forEach = async (step: (output: (typeof outputs)[number]) => Promise<void> | void) => {
    for (const output of [...outputs]) {
      try {
        await step(output);
      } catch (error) {
        await fail(output.file, error, output.writer);
      }
    }
  };
  try {
    for (const [file, format] of formats) {
      try {
        outputs.push({ file, format, writer: await WholeFileWriter.open(file) });
      } catch (error) {
        await fail(file, error);
      }
    }
    await forEach(({ format, writer }) => writer.add(format.head()));
    for (const entry of entries) {
      if (outputs.length === 0) break;
      const job: JobPieces = { entry, rows: resultRowsOf(entry, where.resultsDir) };
      for (const { format, writer } of outputs) writer.add(format.item(job));
      if (outputs.some(({ writer }) => writer.isFull())) await forEach(({ writer }) => writer.flush());
    }
    await forEach(({ format, writer }) => writer.add(format.tail()));
    await forEach(({ writer }) => writer.commit());
  } finally {
    // Only an exception of the entries' own (a state that cannot be read) reaches here with files open.
    for (const { writer } of outputs) await writer.discard();
  }
  const failed = new Set(files.failures.map((failure) => failure.file));
  if (where.reportFile !== undefined && !failed.has(where.reportFile)) files.report = where.reportFile;
  if (where.junitFile !== undefined && !failed.has(where.junitFile)) files.junit = where.junitFile;
  return files;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A job as the files written from one pass show it: its report entry and its results index rows. */
interface JobPieces {
  entry: ReportEntry;
  rows: ResultRow[];
}

function ofRows(format: PiecewiseFormat<ResultRow>): PiecewiseFormat<JobPieces> {
  return { head: format.head, item: ({ rows }) => rows.map(format.item).join(''), tail: format.tail };
}

function ofEntries(format: PiecewiseFormat<ReportEntry>): PiecewiseFormat<JobPieces> {
  return { head: format.head, item: ({ entry }) => format.item(entry), tail: format.tail };
}

/** Text gathered per write when a file is written in pieces: few syscalls, a bounded string. */
const PIECES_PER_WRITE = 64 * 1024;

/**
 * Writes text made in pieces to a hidden temporary sibling, never holding it whole, then renames it
 * over `file` (see {@link WholeFileWriter}).
 */
export async function writeWholeInPieces(file: string, pieces: Iterable<string>): Promise<void> {
  const writer = await WholeFileWriter.open(file);
  try {
    for (const piece of pieces) {
      writer.add(piece);
      if (writer.isFull()) await writer.flush();
    }
    await writer.commit();
  } finally {
    await writer.discard();
  }
}

/**
 * A file written whole: into a hidden temporary sibling (private, #11.8: reports name prompts and
 * unreleased results), a bounded batch of text at a time, then renamed over the file on `commit`.
 */
class WholeFileWriter {
  private pending: string[] = [];
  private length = 0;
  private closed = false;
  private committed = false;

  private constructor(
    private readonly file: string,
    private readonly temporary: string,
    private readonly handle: FileHandle,
  ) {}

  static async open(file: string): Promise<WholeFileWriter> {
    await mkdir(dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
    // The temporary name is fixed per file: one left by a killed run is overwritten and renamed away.
    const temporary = join(dirname(file), `.${basename(file)}.tmp`);
    return new WholeFileWriter(file, temporary, await open(temporary, 'w', PRIVATE_FILE_MODE));
  }

  add(text: string): void {
    this.pending.push(text);
    this.length += text.length;
  }

  /**
   * Whether a batch is due. Pieces are written in batches of 64 KB, small enough that they die young:
   * at 1 MB, a resumed 100,000-job apply's heap grew by ~220 MB of promoted pieces while writing.
   */
  isFull(): boolean {
    return this.length >= PIECES_PER_WRITE;
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const text = this.pending.join('');
    this.pending = [];
    this.length = 0;
    // writeFile continues a short write (a disk filling up) where write() would return it (#24.3).
    await this.handle.writeFile(text, 'utf8');
  }

  /** Writes the rest, makes it durable and renames the file into place. */
  async commit(): Promise<void> {
    await this.flush();
    await this.handle.sync();
    await this.closeHandle();
    await rename(this.temporary, this.file);
    this.committed = true;
  }

  /** Closes the file; a file not committed (a failed write) takes its temporary with it. */
  async close(): Promise<void> {
    await this.closeHandle();
    if (!this.committed) await rm(this.temporary, { force: true });
  }

  /** {@link close}, for a file given up on: an error closing it does not keep its temporary. */
  async discard(): Promise<void> {
    try {
      await this.closeHandle();
    } catch {
      // Closing a file whose write failed may fail too: the temporary is removed all the same.
    }
    if (!this.committed) await rm(this.temporary, { force: true });
  }

  private async closeHandle(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.handle.close();
  }
}
