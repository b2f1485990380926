import type {
  GridImage,
  MediaType,
  ReplacedAttempt,
  ReportCommands,
  ReportEntry,
  ReportStatus,
} from './report-data.js';

/**
 * What `report.html` gives its script (`render-html.ts` writes it, the page's modules under `page/` read
 * it): one definition for both sides, so a field the page reads is a field the runner writes.
 */

/** Statuses in the order the page lists them. */
export const REPORT_STATUSES_IN_ORDER: readonly ReportStatus[] = [
  'done',
  'downloading',
  'failed',
  'deferred',
  'uncertain',
  'open',
  'creating',
  'pending',
];

/** A result as the page links it. */
export interface PageFile {
  href: string;
  /** The small image the gallery and grid show (the lightbox shows `href`); absent: show `href`. */
  thumb?: string;
  mediaType: MediaType;
  bytes?: number;
  remote: boolean;
  expiresAt?: string;
  /** Why a result the state records as saved is not in this machine's output (#30.2). */
  missing?: string;
}

/** An earlier attempt a later one replaced, its results linked as the page links them. */
export interface PageReplacedAttempt extends Omit<ReplacedAttempt, 'files'> {
  files: PageFile[];
}

/**
 * What the page's script receives per job: the entry with its {@link ReportStatus} (`downloading` for a
 * done job whose results are not all on disk), links relative to the report's folder, and for a result
 * that was not downloaded the time its link stops working.
 */
export interface PageEntry extends Omit<ReportEntry, 'files' | 'status' | 'replaced'> {
  status: ReportStatus;
  files: PageFile[];
  replaced?: PageReplacedAttempt[];
}

/** A grid PNG of the run, linked relative to the report's folder. */
export interface PageGridImage extends Omit<GridImage, 'file'> {
  href: string;
}

/** The page's JSON data block (`<script type="application/json" id="report-data">`). */
export interface PageData {
  schemaVersion: 2;
  pipeline: string;
  runId: string;
  manifestFile: string;
  generatedAt: string;
  axes: string[];
  gridImages?: PageGridImage[];
  commands?: ReportCommands;
  statuses: readonly ReportStatus[];
  entries: PageEntry[];
}
