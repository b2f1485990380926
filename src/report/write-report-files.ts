import { mkdir, open, rename } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../file-modes.js';
import { renderReportHtmlPieces } from './render-html.js';
import { renderJunit } from './render-junit.js';
import type { ReportData } from './report-data.js';
import { describeResultsIndex, renderResultsCsvLines, renderResultsJsonChunks } from './results-index.js';

export interface ReportFiles {
  resultsJson: string;
  resultsCsv: string;
  report?: string;
  junit?: string;
}

/**
 * Writes the results index (`results.json`, `results.csv` in `resultsDir`), and the HTML report and
 * JUnit XML when asked for. Each file is written whole to a temporary name and renamed, so a reader
 * (or a crash) never sees half a file.
 */
export async function writeReportFiles(
  data: ReportData,
  where: { resultsDir: string; reportFile?: string | undefined; junitFile?: string | undefined },
  durationSeconds = 0,
): Promise<ReportFiles> {
  const index = describeResultsIndex(data, where.resultsDir);
  const files: ReportFiles = {
    resultsJson: join(where.resultsDir, 'results.json'),
    resultsCsv: join(where.resultsDir, 'results.csv'),
  };
  await writeWholeInPieces(files.resultsJson, renderResultsJsonChunks(index));
  await writeWholeInPieces(files.resultsCsv, renderResultsCsvLines(index));
  if (where.reportFile !== undefined) {
    await writeWholeInPieces(where.reportFile, renderReportHtmlPieces(data, dirname(where.reportFile)));
    files.report = where.reportFile;
  }
  if (where.junitFile !== undefined) {
    await writeWhole(where.junitFile, renderJunit(data, durationSeconds));
    files.junit = where.junitFile;
  }
  return files;
}

/**
 * Writes `text` to a hidden temporary sibling, then renames it over `file`. The temporary name is fixed
 * per file, so one left by a killed run is overwritten and renamed away by the next one.
 */
export function writeWhole(file: string, text: string): Promise<void> {
  return writeWholeInPieces(file, [text]);
}

/** Text gathered per write when a file is written in pieces: few syscalls, a bounded string. */
const PIECES_PER_WRITE = 64 * 1024;

/** {@link writeWhole} of text made in pieces, never holding it whole. */
export async function writeWholeInPieces(file: string, pieces: Iterable<string>): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
  const temporary = join(dirname(file), `.${basename(file)}.tmp`);
  // Private like every file runner writes (#11.8): reports name prompts and unreleased results.
  const handle = await open(temporary, 'w', PRIVATE_FILE_MODE);
  try {
    let pending: string[] = [];
    let length = 0;
    for (const piece of pieces) {
      pending.push(piece);
      length += piece.length;
      if (length >= PIECES_PER_WRITE) {
        await handle.write(pending.join(''), null, 'utf8');
        pending = [];
        length = 0;
      }
    }
    if (pending.length > 0) await handle.write(pending.join(''), null, 'utf8');
  } finally {
    await handle.close();
  }
  await rename(temporary, file);
}
