import { card, tile } from './cards.js';
import { byId, el } from './dom.js';
import { state } from './model.js';
import { printing, videoObserver } from './thumbs.js';

/**
 * The page's windowing (#19.4): only the cards near the view are in the DOM.
 *
 * Scrolling 5,000 results through a page that held every card left Chromium's renderer at 600–900 MB
 * (the cards' layout garbage and its decoded images), though `content-visibility` skipped the cards
 * out of view. Here the gallery is cut into chunks of whole rows: a chunk far from the view is an empty
 * box of the height it had (or an estimate, before it was ever shown), a run of them one such box (the
 * gallery lays out a handful of boxes, not thousands of cards); one near the view (a quarter of a
 * screen above and below) holds its cards. The grid keeps every column label; its rows near the view
 * are in the table with their labels and tiles, each run of the others one empty row as tall as they
 * were. Boxes are read first and the page changed at once: each change lays the table out again. A
 * chunk or row that holds the keyboard focus stays; printing shows every card (print.ts).
 * Browser find (Ctrl+F) sees only the cards near the view: the filters are the way to find a job.
 * (The decoded images were the other half: `thumbCanvas` in thumbs.ts.)
 *
 * What the rest of the page asks of it: the gallery's shown jobs in order and the grid's in its order
 * (for the lightbox's ←/→), a card by its job (made when it is not: arrow keys, the lightbox's return),
 * and every card of the view (print).
 */

// How far beyond the view cards are kept, in screens; a gallery chunk's rows.
const WINDOW_MARGIN = 0.25;
const CHUNK_ROWS = 3;
const GALLERY_GAP = 14;
const GALLERY_MIN_COLUMN = 240;

/** Positions `start` to `end` of the gallery's shown jobs; `node` while in the page; `height` as last laid out. */
interface Chunk {
  start: number;
  end: number;
  node: HTMLDivElement | null;
  height: number;
}

export const galleryWindow = {
  built: false,
  learned: false,
  /** The gallery's jobs (entry indexes) in its order. */
  shown: [] as number[],
  /** Entry index → position in `shown`. */
  positions: new Map<number, number>(),
  chunks: [] as Chunk[],
  columns: 1,
  rowHeight: 420,
};

/** A grid row of one table's body: its label and cells are made (`tr`) while it is near the view. */
export interface GridRow {
  tbody: HTMLTableSectionElement;
  key: string;
  label: string;
  cells: { col: string; indexes: number[] }[];
  byCol: Map<string, number[]>;
  stack: number;
  tr: HTMLTableRowElement | null;
  height: number;
  number: number;
}

export const gridWindow = {
  rows: [] as GridRow[],
  /** The grid's jobs in its order. */
  order: [] as number[],
  /** Entry index → its row and place in `order`. */
  at: new Map<number, { row: number; order: number }>(),
  tileHeight: 0,
};
/** The rows an empty spacer row stands for. */
const spacerRows = new WeakMap<Element, GridRow[]>();
let windowQueued = false;

/** The gallery's columns: as laid out when it shows, else as its CSS would lay them out (auto-fill). */
function galleryColumns(): number {
  const root = byId('gallery');
  if (!root.hidden && root.offsetWidth > 0)
    return getComputedStyle(root).gridTemplateColumns.split(' ').length;
  const width = document.querySelector('main')!.clientWidth - 32;
  return Math.max(1, Math.floor((width + GALLERY_GAP) / (GALLERY_MIN_COLUMN + GALLERY_GAP)));
}

export function sameList(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let at = 0; at < a.length; at++) if (a[at] !== b[at]) return false;
  return true;
}

/**
 * The gallery of these jobs (entry indexes, in order) as chunks of rows, none made yet: updateWindow
 * makes those near the view.
 */
export function buildGalleryWindow(shown: number[]): void {
  const root = byId('gallery');
  forgetCards(root);
  root.textContent = '';
  galleryWindow.built = true;
  galleryWindow.shown = shown;
  galleryWindow.positions = new Map();
  shown.forEach((index, position) => galleryWindow.positions.set(index, position));
  galleryWindow.columns = galleryColumns();
  galleryWindow.chunks = [];
  const size = galleryWindow.columns * CHUNK_ROWS;
  for (let start = 0; start < shown.length; start += size) {
    galleryWindow.chunks.push({ start, end: Math.min(shown.length, start + size), node: null, height: 0 });
  }
  placeSpacers();
}

/** A chunk's height: as last laid out, else as its rows would be at the height rows have so far. */
function chunkHeight(chunk: Chunk): number {
  if (chunk.node) return chunk.node.offsetHeight;
  if (chunk.height > 0) return chunk.height;
  const rows = Math.ceil((chunk.end - chunk.start) / galleryWindow.columns);
  return rows * galleryWindow.rowHeight + (rows - 1) * GALLERY_GAP;
}

function renderChunk(chunk: Chunk): void {
  if (chunk.node) return;
  makeChunk(chunk);
  placeSpacers();
}

function makeChunk(chunk: Chunk): void {
  const at = galleryWindow.chunks.indexOf(chunk);
  const node = el('div', 'chunk');
  for (let position = chunk.start; position < chunk.end; position++)
    node.appendChild(card(galleryWindow.shown[position]!));
  let after: HTMLDivElement | null = null;
  for (let next = at + 1; next < galleryWindow.chunks.length && !after; next++)
    after = galleryWindow.chunks[next]!.node;
  byId('gallery').insertBefore(node, after);
  chunk.node = node;
}

// Its height is read before, with the others' (one layout, not one a chunk).
function emptyChunk(chunk: Chunk): void {
  forgetCards(chunk.node!);
  chunk.node!.remove();
  chunk.node = null;
}

// Between the chunks in the page, one empty box per run of chunks that are not, as tall as they were
// (the gallery lays out a handful of boxes, not thousands of cards).
function placeSpacers(): void {
  const root = byId('gallery');
  root.querySelectorAll(':scope > .spacer').forEach((node) => node.remove());
  let run = 0;
  let height = 0;
  const add = (before: Node | null): void => {
    if (run === 0) return;
    const spacer = el('div', 'spacer');
    spacer.style.height = String(height + (run - 1) * GALLERY_GAP) + 'px';
    root.insertBefore(spacer, before);
    run = 0;
    height = 0;
  };
  galleryWindow.chunks.forEach((chunk) => {
    if (chunk.node) add(chunk.node);
    else {
      run++;
      height += chunkHeight(chunk);
    }
  });
  add(null);
}

/** What an observer watches in cards that leave the DOM (it would keep them alive). */
export function forgetCards(root: Element): void {
  // A canvas' pixels go now, not when its card is collected.
  root.querySelectorAll('canvas').forEach((canvas) => {
    const context = canvas.getContext('bitmaprenderer');
    if (context) context.transferFromImageBitmap(null);
  });
  const observer = videoObserver;
  if (!observer) return;
  root.querySelectorAll('video[data-src]').forEach((video) => observer.unobserve(video));
}

function holdsFocus(node: Element): boolean {
  const focused = document.activeElement;
  return focused !== null && focused !== document.body && node.contains(focused);
}

/** Whether a box is within the view and its margin. */
function nearView(box: { top: number; bottom: number }): boolean {
  const margin = window.innerHeight * WINDOW_MARGIN;
  return box.bottom > -margin && box.top < window.innerHeight + margin && box.bottom > box.top;
}

function updateGalleryWindow(): void {
  const root = byId('gallery');
  if (root.hidden || !galleryWindow.built) return;
  if (galleryColumns() !== galleryWindow.columns) {
    const keep = focusedCard();
    buildGalleryWindow(galleryWindow.shown);
    if (keep) refocus(keep);
  }
  const chunks = galleryWindow.chunks;
  // Where each chunk is, from the gallery's top and the chunks' heights; making one may move those
  // below it (its estimate was off): look again until nothing changes.
  for (let round = 0; round < 4; round++) {
    let top = root.getBoundingClientRect().top;
    const near = chunks.map((chunk) => {
      const height = chunkHeight(chunk);
      const box = { top, bottom: top + height };
      top += height + GALLERY_GAP;
      return nearView(box);
    });
    const far = chunks.filter((chunk, at) => !near[at] && chunk.node && !holdsFocus(chunk.node));
    const coming = chunks.filter((chunk, at) => near[at] && !chunk.node);
    if (far.length === 0 && coming.length === 0) return;
    far.forEach((chunk) => {
      chunk.height = chunk.node!.offsetHeight;
    });
    far.forEach(emptyChunk);
    coming.forEach(makeChunk);
    placeSpacers();
    learnRowHeight();
  }
}

/** The first chunks shown tell how tall a row is: the chunks never shown are sized by it. */
function learnRowHeight(): void {
  if (galleryWindow.learned) return;
  let rows = 0;
  let height = 0;
  galleryWindow.chunks.forEach((chunk) => {
    if (!chunk.node) return;
    const count = Math.ceil((chunk.end - chunk.start) / galleryWindow.columns);
    rows += count;
    height += chunk.node.offsetHeight - (count - 1) * GALLERY_GAP;
  });
  if (rows === 0) return;
  galleryWindow.learned = true;
  galleryWindow.rowHeight = Math.max(40, height / rows);
  placeSpacers();
}

/**
 * A grid row of a table's body: its label and cells are made when it nears the view, and between the
 * rows made, one empty row per run of rows that are not, as tall as they were.
 */
export function addGridRow(
  tbody: HTMLTableSectionElement,
  item: { key: string; label: string },
  cells: { col: string; indexes: number[] }[],
): void {
  const row: GridRow = {
    tbody,
    key: item.key,
    label: item.label,
    cells,
    byCol: new Map(),
    stack: 1,
    tr: null,
    height: 0,
    number: gridWindow.rows.length,
  };
  cells.forEach((cell) => {
    row.byCol.set(cell.col, cell.indexes);
    row.stack = Math.max(row.stack, cell.indexes.length);
    cell.indexes.forEach((index) => {
      gridWindow.at.set(index, { row: row.number, order: gridWindow.order.length });
      gridWindow.order.push(index);
    });
  });
  gridWindow.rows.push(row);
}

export function resetGridWindow(): void {
  gridWindow.rows = [];
  gridWindow.order = [];
  gridWindow.at = new Map();
}

function gridRowHeight(row: GridRow): number {
  if (row.tr) return row.tr.offsetHeight;
  if (row.height > 0) return row.height;
  const tileHeight = gridWindow.tileHeight || state.size + 2;
  return Math.max(32, row.stack * tileHeight + 6);
}

function renderGridRow(row: GridRow): void {
  if (row.tr) return;
  makeGridRow(row);
  placeGridSpacers();
}

function makeGridRow(row: GridRow): void {
  const line = el('tr');
  line.setAttribute('data-row', row.key);
  const th = el('th', '', row.label);
  th.setAttribute('scope', 'row');
  line.appendChild(th);
  row.cells.forEach((cell) => {
    const td = el('td');
    td.setAttribute('data-col', cell.col);
    cell.indexes.forEach((index) => td.appendChild(tile(index)));
    line.appendChild(td);
  });
  let after: HTMLTableRowElement | null = null;
  for (
    let next = row.number + 1;
    next < gridWindow.rows.length && !after && gridWindow.rows[next]!.tbody === row.tbody;
    next++
  )
    after = gridWindow.rows[next]!.tr;
  row.tbody.insertBefore(line, after);
  row.tr = line;
}

// Its height is read before: reading it here would lay the table out again for each row let go.
function emptyGridRow(row: GridRow): void {
  forgetCards(row.tr!);
  row.tr!.remove();
  row.tr = null;
}

export function placeGridSpacers(): void {
  byId('grid')
    .querySelectorAll('tr.spacer')
    .forEach((node) => node.remove());
  let run: GridRow[] = [];
  const add = (before: Node | null): void => {
    if (run.length === 0) return;
    const first = run[0]!;
    const spacer = el('tr', 'spacer');
    const cell = el('td');
    cell.colSpan = first.cells.length + 1;
    cell.style.height = String(run.reduce((sum, row) => sum + gridRowHeight(row), 0)) + 'px';
    spacer.appendChild(cell);
    spacerRows.set(spacer, run);
    first.tbody.insertBefore(spacer, before);
    run = [];
  };
  gridWindow.rows.forEach((row) => {
    if (run.length > 0 && run[0]!.tbody !== row.tbody) add(null);
    if (row.tr) add(row.tr);
    else run.push(row);
  });
  add(null);
}

/** The slider changed the tiles' size: rows not in the page take the new estimate. */
export function resizeGridRows(): void {
  gridWindow.tileHeight = 0;
  gridWindow.rows.forEach((row) => {
    row.height = 0;
  });
  placeGridSpacers();
  scheduleWindow();
}

function updateGridWindow(): void {
  const grid = byId('grid');
  if (grid.hidden) return;
  for (let round = 0; round < 4; round++) {
    // Where each row is: its own box, or its place in the empty row that stands for it.
    const near = new Map<GridRow, boolean>();
    grid.querySelectorAll('tbody > tr').forEach((tr) => {
      const box = tr.getBoundingClientRect();
      const rows = spacerRows.get(tr);
      if (!rows) return;
      let top = box.top;
      rows.forEach((row) => {
        const height = gridRowHeight(row);
        near.set(row, nearView({ top, bottom: top + height }));
        top += height;
      });
    });
    // Every box is read first, then the page changed at once: one layout of the table, not one a row.
    const far: GridRow[] = [];
    const coming: GridRow[] = [];
    gridWindow.rows.forEach((row) => {
      const isNear = row.tr ? nearView(row.tr.getBoundingClientRect()) : near.get(row);
      if (!isNear && row.tr && !holdsFocus(row.tr)) {
        row.height = row.tr.offsetHeight;
        far.push(row);
      } else if (isNear && !row.tr) coming.push(row);
    });
    if (far.length === 0 && coming.length === 0) return;
    far.forEach(emptyGridRow);
    coming.forEach(makeGridRow);
    placeGridSpacers();
    if (!gridWindow.tileHeight) {
      const shown = grid.querySelector<HTMLElement>('.tile');
      if (shown) {
        gridWindow.tileHeight = shown.offsetHeight + 2;
        placeGridSpacers();
      }
    }
  }
}

/** The cards of the view in and near it, now; while printing, none is emptied. */
export function updateWindow(): void {
  windowQueued = false;
  if (printing) return;
  if (state.view === 'grid') updateGridWindow();
  else updateGalleryWindow();
}

export function scheduleWindow(): void {
  if (windowQueued) return;
  windowQueued = true;
  requestAnimationFrame(updateWindow);
}

/** Every card of the view (print). */
export function renderWholeView(): void {
  if (state.view === 'grid') {
    gridWindow.rows.forEach((row) => {
      if (!row.tr) makeGridRow(row);
    });
    placeGridSpacers();
  } else {
    galleryWindow.chunks.forEach((chunk) => {
      if (!chunk.node) makeChunk(chunk);
    });
    placeSpacers();
  }
}

/** The jobs the view shows, in its order. */
export function viewOrder(): number[] {
  return state.view === 'grid' ? gridWindow.order.slice() : galleryWindow.shown.slice();
}

/** The card of a job in the current view, made if it was not (undefined when the view does not show it). */
export function cardOf(index: number): HTMLElement | undefined {
  let node: HTMLElement | null;
  if (state.view === 'grid') {
    const at = gridWindow.at.get(index);
    if (at === undefined) return undefined;
    const row = gridWindow.rows[at.row]!;
    renderGridRow(row);
    node = row.tr!.querySelector<HTMLElement>('.card[data-index="' + index + '"]');
  } else {
    const position = galleryWindow.positions.get(index);
    if (position === undefined) return undefined;
    const chunk = galleryWindow.chunks[Math.floor(position / (galleryWindow.columns * CHUNK_ROWS))]!;
    renderChunk(chunk);
    node = chunk.node!.querySelector<HTMLElement>('.card[data-index="' + index + '"]');
  }
  return node || undefined;
}

function focusedCard(): { index: number; file: string | null } | null {
  const focused = document.activeElement;
  const node = focused && typeof focused.closest === 'function' ? focused.closest('.card[data-index]') : null;
  if (!focused || !node) return null;
  const target = focused.closest('[data-file]');
  return {
    index: Number(node.getAttribute('data-index')),
    file: target ? target.getAttribute('data-file') : null,
  };
}

function refocus(kept: { index: number; file: string | null }): void {
  const node = cardOf(kept.index);
  if (!node) return;
  const target =
    (kept.file !== null && node.querySelector<HTMLElement>('.open[data-file="' + kept.file + '"]')) ||
    node.querySelector<HTMLElement>('.open');
  if (target) target.focus({ preventScroll: true });
}

export function setupWindow(): void {
  window.addEventListener('scroll', scheduleWindow, { passive: true });
  window.addEventListener('resize', scheduleWindow);
}
