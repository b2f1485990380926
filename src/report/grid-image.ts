import type { MatrixValue } from '../manifest/types.js';
import { isAbsolute } from 'node:path';
import type { GridImage, ReportData, ReportEntry } from './report-data.js';
import { relativePath } from './results-index.js';
import { loadSharp, writeThumbnailFile, type ThumbnailLookup } from './thumbnails.js';

/** Above this many jobs no grid image is made: it would be too large to open (and slow at every apply). */
export const GRID_IMAGE_MAX_JOBS = 2000;

/** Nor above this many pixels (the image's width × height). */
const GRID_IMAGE_MAX_PIXELS = 60_000_000;

/** Pixels of one result in the grid image. */
const TILE = 128;
const GAP = 4;
const LABEL_WIDTH = 180;
const HEAD_HEIGHT = 30;
const TITLE_HEIGHT = 36;
const FONT = 13;

/**
 * The grid of a run's results as PNGs, made in Node at report time: a page opened from disk cannot
 * export its own grid (Chromium taints a canvas with any `file:` image). One PNG, of the layout the
 * page opens with: rows the first matrix axis, columns the second (the page offers it swapped too),
 * and the third, if any, as one grid per value stacked under its label, as stable-diffusion-webui's
 * X/Y/Z plot saves it.
 * Each result is its thumbnail (or the file) fitted in a square; a job without one shows its status.
 * Labels are SVG text. Written into `<outputDir>/thumbnails/` as thumbnails are (a new private
 * temporary never through a link, renamed into place); the names say the layout, so a later report
 * replaces them. None for a run of fewer than two axes, more than {@link GRID_IMAGE_MAX_JOBS} jobs, or
 * when this folder holds fewer than half of the run's done results (see {@link mostlyHere}).
 */
export async function writeGridImages(
  data: ReportData,
  outputDir: string,
  thumbnails: ThumbnailLookup,
): Promise<GridImage[]> {
  const axes = data.axes.slice(0, 3);
  if (!mayMakeGridImages(data)) return [];
  const jobs: GridJob[] = [];
  for (const entry of data.entries) jobs.push(gridJobOf(entry, thumbnails, outputDir));
  if (!mostlyHere(jobs)) return [];
  const [rows = '', cols = '', split] = axes;
  const layout = layoutGrid(jobs, rows, cols, split);
  if (layout === undefined || layout.width * layout.height > GRID_IMAGE_MAX_PIXELS) return [];
  const sharp = loadSharp();
  // The tiles are copied into one raw canvas and only the labels are composited: sharp's composite
  // of one overlay per result costs the whole image per overlay (33 s for 1,000 results).
  const canvas = Buffer.alloc(layout.width * layout.height * 3, 255);
  const tiles = new Map<string, Buffer | undefined>();
  for (const place of layout.places) {
    const tile = await tileOf(sharp, place.job, tiles);
    if (tile === undefined) continue;
    for (let line = 0; line < TILE; line++) {
      const at = ((place.top + line) * layout.width + place.left) * 3;
      tile.copy(canvas, at, line * TILE * 3, (line + 1) * TILE * 3);
    }
  }
  const png = await sharp(canvas, { raw: { width: layout.width, height: layout.height, channels: 3 } })
    .composite([{ input: Buffer.from(layout.svg), left: 0, top: 0 }])
    .png({ compressionLevel: 6 })
    .toBuffer();
  const name = `grid-${safeName(rows)}-${safeName(cols)}${split === undefined ? '' : `-${safeName(split)}`}.png`;
  const file = await writeThumbnailFile(outputDir, name, png);
  const images: GridImage[] = [{ rows, cols, ...(split === undefined ? {} : { split }), file }];
  return images;
}

/** Whether a run's report may have a grid image (two axes or more, at most {@link GRID_IMAGE_MAX_JOBS} jobs). */
export function mayMakeGridImages(data: Pick<ReportData, 'axes' | 'entries'>): boolean {
  return data.axes.length >= 2 && data.entries.length <= GRID_IMAGE_MAX_JOBS;
}

/**
 * Whether this output folder holds at least half of the images of the run's done jobs. Else the grid
 * image would be mostly empty cells: a folder with no result (nothing is written there), results
 * mostly expired before they were saved, or one machine's folder of a run several machines applied
 * (each saves the results it completed). There it cost each machine of a 3-machine CI matrix ~0.8 s
 * of its end, for an image of a third of the run; the page's grid view shows the results all the same.
 */
function mostlyHere(jobs: readonly GridJob[]): boolean {
  const here = jobs.filter((job) => job.here).length;
  // A done job whose results are not all saved counts as `downloading`: its image is owed here too.
  const done = jobs.filter((job) => job.status === 'done' || job.status === 'downloading').length;
  return here > 0 && here * 2 >= done;
}

/** What the grid image needs of a job: its axis values (as keys and labels) and what to draw. */
interface GridJob {
  id: string;
  status: string;
  values: Map<string, { key: string; label: string }>;
  image?: string;
  /** Whether the image is in this output folder (another machine's results are in its own). */
  here: boolean;
}

function isInside(dir: string, file: string): boolean {
  const path = relativePath(dir, file);
  return path !== '' && path !== '..' && !path.startsWith('../') && !isAbsolute(path);
}

function gridJobOf(entry: ReportEntry, thumbnails: ThumbnailLookup, outputDir: string): GridJob {
  const values = new Map<string, { key: string; label: string }>();
  for (const [axis, value] of Object.entries(entry.matrix)) {
    values.set(axis, { key: JSON.stringify(value), label: valueLabel(value) });
  }
  const file = entry.files.find(
    (candidate) => candidate.path !== undefined && candidate.mediaType === 'image',
  );
  const thumbnail = file === undefined ? undefined : thumbnails(file);
  const image = thumbnail ?? file?.path;
  // In this folder: its thumbnail is here, or the file itself (a result saved before thumbnails).
  const here = thumbnail !== undefined || (image !== undefined && isInside(outputDir, image));
  return { id: entry.id, status: entry.status, values, here, ...(image === undefined ? {} : { image }) };
}

/** As the page labels a value: a map by its name (or label, title, id), else short key=value text. */
function valueLabel(value: MatrixValue): string {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    for (const key of ['name', 'label', 'title', 'id']) {
      const named = record[key];
      if (typeof named === 'string' || typeof named === 'number') return String(named);
    }
  }
  return keyValueText(value);
}

function keyValueText(value: unknown): string {
  if (value === null) return '(none)';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value !== 'object') return '';
  if (Array.isArray(value)) return value.map(keyValueText).join(', ');
  return Object.entries(value as Record<string, unknown>)
    .map(([key, item]) => `${key}=${keyValueText(item)}`)
    .join(' ');
}

interface Layout {
  width: number;
  height: number;
  svg: string;
  places: { job: GridJob; left: number; top: number }[];
}

/** Where each job goes, and the labels as one SVG the size of the image. */
function layoutGrid(
  jobs: GridJob[],
  rows: string,
  cols: string,
  split: string | undefined,
): Layout | undefined {
  const placed = jobs.filter((job) => job.values.has(rows) && job.values.has(cols));
  if (placed.length === 0) return undefined;
  const sections = split === undefined ? [{ title: '', jobs: placed }] : groupBy(placed, split);
  const text: string[] = [];
  const places: Layout['places'] = [];
  let top = 0;
  let width = 0;
  for (const section of sections) {
    const rowValues = valuesOf(section.jobs, rows);
    const colValues = valuesOf(section.jobs, cols);
    const cells = new Map<string, GridJob[]>();
    for (const job of section.jobs) {
      const key = `${job.values.get(rows)?.key}\u0000${job.values.get(cols)?.key}`;
      cells.set(key, [...(cells.get(key) ?? []), job]);
    }
    const perCell = Math.max(...[...cells.values()].map((list) => list.length));
    const cellWidth = perCell * (TILE + GAP) + GAP;
    if (section.title !== '') {
      text.push(label(section.title, 8, top + 24, 18, 'bold', 2000));
      top += TITLE_HEIGHT;
    }
    text.push(label(`${rows} \\ ${cols}`, 6, top + 20, FONT, 'bold', LABEL_WIDTH - 10));
    colValues.forEach((col, at) => {
      text.push(
        label(col.label, LABEL_WIDTH + at * cellWidth + GAP, top + 20, FONT, 'bold', cellWidth - GAP),
      );
    });
    top += HEAD_HEIGHT;
    for (const row of rowValues) {
      text.push(label(row.label, 6, top + TILE / 2, FONT, 'bold', LABEL_WIDTH - 10));
      colValues.forEach((col, at) => {
        (cells.get(`${row.key}\u0000${col.key}`) ?? []).forEach((job, position) => {
          const left = LABEL_WIDTH + at * cellWidth + GAP + position * (TILE + GAP);
          places.push({ job, left, top: top + GAP });
          if (job.image === undefined) {
            text.push(
              `<rect x="${left}" y="${top + GAP}" width="${TILE}" height="${TILE}" fill="#eeeeee"/>`,
              label(
                job.status,
                left + 8,
                top + GAP + TILE / 2,
                FONT,
                'normal',
                TILE - 16,
                job.status === 'failed' ? '#b3261e' : '#8a5a00',
              ),
            );
          }
        });
      });
      top += TILE + 2 * GAP;
    }
    top += GAP * 4;
    width = Math.max(width, LABEL_WIDTH + colValues.length * cellWidth + GAP);
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${top}"><g font-family="DejaVu Sans, Arial, sans-serif">${text.join('')}</g></svg>`;
  return { width, height: top, svg, places };
}

function groupBy(jobs: GridJob[], axis: string): { title: string; jobs: GridJob[] }[] {
  const groups = new Map<string, { title: string; jobs: GridJob[] }>();
  for (const job of jobs) {
    const value = job.values.get(axis);
    const key = value?.key ?? '';
    const title = value === undefined ? `${axis}: no value` : `${axis} = ${value.label}`;
    const group = groups.get(key) ?? { title, jobs: [] };
    group.jobs.push(job);
    groups.set(key, group);
  }
  return [...groups.values()];
}

/** An axis' values among `jobs`, in order of first appearance (the page's order). */
function valuesOf(jobs: GridJob[], axis: string): { key: string; label: string }[] {
  const seen = new Map<string, { key: string; label: string }>();
  for (const job of jobs) {
    const value = job.values.get(axis);
    if (value !== undefined && !seen.has(value.key)) seen.set(value.key, value);
  }
  return [...seen.values()];
}

/** SVG text, shortened to about `width` pixels (a character is ~0.6 of the font size wide). */
function label(
  text: string,
  x: number,
  y: number,
  size: number,
  weight: string,
  width: number,
  fill = '#1d1d1f',
): string {
  const max = Math.max(3, Math.floor(width / (size * 0.6)));
  const shown = text.length > max ? `${text.slice(0, max - 1)}…` : text;
  return `<text x="${x}" y="${y}" font-size="${size}" font-weight="${weight}" fill="${fill}">${escapeXml(shown)}</text>`;
}

function escapeXml(text: string): string {
  return (
    text
      .replaceAll('&', '&amp;')
      .replaceAll('<', '&lt;')
      .replaceAll('>', '&gt;')
      .replaceAll('"', '&quot;')
      // Control characters are not allowed in XML 1.0.
      .replace(/\p{Cc}/gu, (char) => (char === '\t' || char === '\n' || char === '\r' ? char : ''))
  );
}

type Sharp = ReturnType<typeof loadSharp>;

/** A job's tile, fitted in the square; undefined when its image cannot be read (the square stays blank). */
async function tileOf(
  sharp: Sharp,
  job: GridJob,
  tiles: Map<string, Buffer | undefined>,
): Promise<Buffer | undefined> {
  if (job.image === undefined) return undefined;
  if (tiles.has(job.image)) return tiles.get(job.image);
  let tile: Buffer | undefined;
  try {
    tile = await sharp(job.image, { failOn: 'error' })
      .rotate()
      .resize({ width: TILE, height: TILE, fit: 'contain', background: '#f0f0f0' })
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      .raw()
      .toBuffer();
    if (tile.length !== TILE * TILE * 3) tile = undefined;
  } catch {
    tile = undefined;
  }
  tiles.set(job.image, tile);
  return tile;
}

function safeName(axis: string): string {
  return axis.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40) || 'axis';
}
