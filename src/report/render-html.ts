import { createHash } from 'node:crypto';
import { REPORT_PAGE_SCRIPT } from '../generated/report-page.js';
import { REPORT_STATUSES_IN_ORDER, type PageData, type PageEntry, type PageFile } from './page-data.js';
import { REPORT_PAGE_STYLE } from './report-page-style.js';
import { REPORT_PAGE_REVIEW_STYLE } from './report-page-review-style.js';
import { reportStatusOf, type ReportData, type ReportEntry, type ReportFile } from './report-data.js';
import { readableUtcTime } from '../readable-time.js';
import { piecesOf, type PiecewiseFormat } from './piecewise-text.js';
import { relativePath } from './results-index.js';
import type { ThumbnailLookup } from './thumbnails.js';

/**
 * The gallery report as one self-contained HTML page (inline CSS and script, no network): opened from
 * disk, it shows every job of the run with its result (or why there is none), filters by status and
 * matrix axis, a grid of two chosen axes, and a lightbox. Pure and linear in the number of jobs.
 *
 * Every user string (prompts, params, errors) travels as JSON inside a `<script type="application/json">`
 * whose `<`, `>` and `&` are escaped, and the page's script puts it into the DOM with `textContent`
 * only: a prompt like `<img src=x onerror=alert(1)>` shows as text.
 *
 * @param reportDir absolute folder the page is written to; downloaded files are linked relative to it,
 * results that were not downloaded by their URL.
 */
export function renderReportHtml(data: ReportData, reportDir: string, thumbnails?: ThumbnailLookup): string {
  return [...renderReportHtmlPieces(data, reportDir, thumbnails)].join('');
}

/**
 * {@link renderReportHtml} in pieces, one job's data at a time: the page of a 100,000-job run is
 * ~50 MB, which as one string (with the JSON and the page entries behind it) weighed on every apply.
 */
export function renderReportHtmlPieces(
  data: ReportData,
  reportDir: string,
  thumbnails?: ThumbnailLookup,
): Generator<string> {
  return piecesOf(reportHtmlFormat(data, reportDir, thumbnails), data.entries);
}

/**
 * `report.html` a job at a time (see {@link renderReportHtmlPieces}); `data.entries` is not read.
 * `thumbnails` names each downloaded image's thumbnail (`readThumbnails`), which the gallery and the
 * grid show instead of the file.
 */
export function reportHtmlFormat(
  data: Omit<ReportData, 'entries'>,
  reportDir: string,
  thumbnails?: ThumbnailLookup,
): PiecewiseFormat<ReportEntry> {
  const payloadHead: PageData = {
    schemaVersion: 2,
    pipeline: data.pipeline,
    runId: data.runId,
    manifestFile: data.manifestFile,
    generatedAt: data.generatedAt,
    axes: data.axes,
    ...(data.gridImages === undefined || data.gridImages.length === 0
      ? {}
      : {
          gridImages: data.gridImages.map(({ file, ...layout }) => ({
            ...layout,
            href: encodePath(relativePath(reportDir, file)),
          })),
        }),
    ...(data.commands === undefined ? {} : { commands: data.commands }),
    statuses: REPORT_STATUSES_IN_ORDER,
    entries: [],
  };
  const title = `${data.pipeline} · run ${data.runId}`;
  const page = [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    // Nothing from the network: the page works from disk, offline, and cannot leak what it shows.
    // Only the page's own script and style run (by hash): no inline handler, no injected element.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src 'self' file: data: https: http:; media-src 'self' file: https: http:; style-src '${PAGE_STYLE_HASH}'; script-src '${PAGE_SCRIPT_HASH}'">`,
    `<title>${escapeHtml(title)}</title>`,
    `<style>${PAGE_STYLE}</style>`,
    '</head>',
    '<body>',
    `<header><h1>${escapeHtml(data.pipeline)} <small>run ${escapeHtml(data.runId)}</small></h1>`,
    // When it was made, as people read it: UTC here (the runner does not know the reader's zone), the
    // reader's local time once the page's script runs; the exact ISO instant stays in the attributes.
    `<p class="meta">${escapeHtml(data.manifestFile)} · made <time id="made" datetime="${escapeHtml(data.generatedAt)}" title="${escapeHtml(data.generatedAt)}">${escapeHtml(readableUtcTime(data.generatedAt))}</time> · <span id="summary"></span></p>`,
    '<p id="attention" class="attention" hidden></p>',
    '<form id="controls">',
    '<label>view <select id="view"><option value="gallery">gallery</option><option value="grid">grid</option></select></label>',
    '<label>status <select id="filter-status" data-filter="status"><option value="">all</option></select></label>',
    '<span id="axis-filters"></span>',
    '<span id="grid-axes" hidden><label>rows <select id="grid-rows"></select></label> <label>columns <select id="grid-cols"></select></label> <label>grids per <select id="grid-split"></select></label> <label>size <input type="range" id="grid-size"></label></span>',
    '<span id="shown" role="status" aria-live="polite"></span>',
    '<button type="button" id="print" title="Loads every image of this view, then prints">Print</button>',
    '</form></header>',
    '<main><div id="empty" class="empty-result" hidden><p>No job matches these filters.</p><button type="button" id="clear-filters">Show all jobs</button></div><div id="gallery"></div><div id="grid" hidden></div></main>',
    '<noscript><p>This report needs JavaScript to show its results.</p></noscript>',
    '<script type="application/json" id="report-data">',
  ].join('\n');
  let first = true;
  return {
    // The payload's JSON with its entries (its last key) one by one; escaping is per character, so
    // escaping the pieces is escaping the whole.
    head: () => page + escapeJsonForScript(JSON.stringify(payloadHead).slice(0, -']}'.length)),
    item(entry) {
      const json = JSON.stringify(toPageEntry(entry, reportDir, thumbnails));
      const piece = escapeJsonForScript(first ? json : `,${json}`);
      first = false;
      return piece;
    },
    tail: () =>
      [']}</script>', `<script>${REPORT_PAGE_SCRIPT}</script>`, '</body>', '</html>', ''].join('\n'),
  };
}

const PAGE_STYLE = REPORT_PAGE_STYLE + REPORT_PAGE_REVIEW_STYLE;
// The page's script is its modules (`page/`) as scripts/bundle-report-page.js bundles them.
const PAGE_SCRIPT_HASH = cspHash(REPORT_PAGE_SCRIPT);
const PAGE_STYLE_HASH = cspHash(PAGE_STYLE);

/** A CSP source that allows exactly this inline script or style text. */
function cspHash(text: string): string {
  return `sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}`;
}

function toPageEntry(entry: ReportEntry, reportDir: string, thumbnails?: ThumbnailLookup): PageEntry {
  const toPageFiles = (files: readonly ReportFile[]) =>
    files.map((file) => {
      const page: PageFile =
        file.path === undefined
          ? {
              href: file.url,
              mediaType: file.mediaType,
              remote: true,
              ...(file.urlExpiresAt !== undefined && { expiresAt: file.urlExpiresAt }),
              ...(file.missing !== undefined && { missing: file.missing }),
            }
          : {
              href: encodePath(relativePath(reportDir, file.path)),
              mediaType: file.mediaType,
              remote: false,
            };
      if (file.bytes !== undefined) page.bytes = file.bytes;
      const thumb = thumbnails?.(file);
      if (thumb !== undefined) page.thumb = encodePath(relativePath(reportDir, thumb));
      return page;
    });
  const { replaced, ...rest } = entry;
  return {
    ...rest,
    status: reportStatusOf(entry),
    files: toPageFiles(entry.files),
    ...(replaced === undefined
      ? {}
      : { replaced: replaced.map((attempt) => ({ ...attempt, files: toPageFiles(attempt.files) })) }),
  };
}

export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** JSON inside `<script>`: `</script>` or `<!--` in a prompt must not end or change the element. */
function escapeJsonForScript(json: string): string {
  return json.replaceAll('<', '\\u003c').replaceAll('>', '\\u003e').replaceAll('&', '\\u0026');
}

/** A relative file path as a URL path: each segment percent-encoded (`#`, `?`, spaces in names). */
function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}
