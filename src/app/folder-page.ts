import { dirname } from 'node:path';
import { writeGridImages } from '../report/grid-image.js';
import { renderReportHtmlPieces } from '../report/render-html.js';
import type { ReportData } from '../report/report-data.js';
import { makeMissingThumbnails, readThumbnails } from '../report/thumbnails.js';
import { writeWholeInPieces } from '../report/write-report-files.js';
import { createFolderResultsStore } from '../results/backends/folder/folder-results-store.js';
import type { ResultFiles } from '../results/result-files.js';
import type { JobState } from '../state/index.js';
import { copyResultsHere } from './copy-results-here.js';

/** A bucket's results to copy into the page's folder first, for a review that works offline. */
export interface CopyForReview {
  from: ResultFiles;
  state: ReadonlyMap<string, JobState>;
  /** The recorded results the bucket does not hold as recorded (not copied; the page says why). */
  missing: ReadonlyMap<string, ReadonlyMap<string, string>>;
}

/** What {@link writeFolderPage} did besides the page, for the command's warnings. */
export interface FolderPageWritten {
  /** The results copied from the bucket, with `copy`. */
  copied?: { copied: number; bytes: number };
  /** Thumbnails that could not be written (the page shows those files full size), and why. */
  thumbnailsFailed: number;
  firstThumbnailError?: string;
  /** Why the grid image could not be written, when it could not (the page draws its grid itself). */
  gridError?: string;
}

/**
 * The report page written in a folder of this machine, its thumbnails and grid image in `dir`
 * (`thumbnails/`) beside the results: `runner report` of a folder output, and the page of a bucket
 * output that is a file of this machine (`runner report --out DIR`, `apply --report FILE`, #30.3), whose
 * results are copied from the bucket into `dir` first (`copy`), so that every image and link of the
 * page is a file beside it. `data`'s entries name each result as a path in `dir`. The thumbnails the
 * folder lacks are made from its files (no read from a bucket).
 */
export async function writeFolderPage(
  data: ReportData,
  where: { file: string; dir: string },
  copy?: CopyForReview,
): Promise<FolderPageWritten> {
  const copied =
    copy === undefined
      ? undefined
      : await copyResultsHere(copy.from, createFolderResultsStore(where.dir), copy.state, copy.missing);
  const made = await makeMissingThumbnails(data.entries, where.dir);
  const thumbnails = await readThumbnails(where.dir);
  let gridError: string | undefined;
  const gridImages = await writeGridImages(data, where.dir, thumbnails).catch((error: unknown) => {
    gridError = error instanceof Error ? error.message : String(error);
    return [];
  });
  await writeWholeInPieces(
    where.file,
    renderReportHtmlPieces({ ...data, gridImages }, dirname(where.file), thumbnails),
  );
  return {
    ...(copied === undefined ? {} : { copied }),
    thumbnailsFailed: made.failed,
    ...(made.firstError === undefined ? {} : { firstThumbnailError: made.firstError }),
    ...(gridError === undefined ? {} : { gridError }),
  };
}
