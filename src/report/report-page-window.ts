/**
 * The report page's windowing (#19.4), plain ES2017 in the page's one function scope (its `entries`,
 * `state`, `el`, `byId`, `card`, `tile`, `printing`...): only the cards near the view are in the DOM.
 *
 * Scrolling 5,000 results through a page that held every card left Chromium's renderer at 600–900 MB
 * (the cards' layout garbage and its decoded images), though `content-visibility` skipped the cards
 * out of view. Here the gallery is cut into chunks of whole rows: a chunk far from the view is an empty
 * box of the height it had (or an estimate, before it was ever shown), a run of them one such box (the
 * gallery lays out a handful of boxes, not thousands of cards); one near the view (a quarter of a
 * screen above and below) holds its cards. The grid keeps every column label; its rows near the view
 * are in the table with their labels and tiles, each run of the others one empty row as tall as they
 * were. Boxes are read first and the page changed at once: each change lays the table out again. A
 * chunk or row that holds the keyboard focus stays; printing shows every card (`report-page-media.ts`).
 * Browser find (Ctrl+F) sees only the cards near the view: the filters are the way to find a job.
 * (The decoded images were the other half: `thumbCanvas` in `report-page-script.ts`.)
 *
 * What the rest of the page asks of it: the gallery's shown jobs in order and the grid's in its order
 * (for the lightbox's ←/→), a card by its job (made when it is not: arrow keys, the lightbox's return),
 * and every card of the view (print).
 */
export const REPORT_PAGE_WINDOW_SCRIPT = String.raw`
// How far beyond the view cards are kept, in screens; a gallery chunk's rows.
var WINDOW_MARGIN = 0.25;
var CHUNK_ROWS = 3;
var GALLERY_GAP = 14;
var GALLERY_MIN_COLUMN = 240;
// chunks: { start, end (positions in shown), node (while in the page), height (as last laid out) }.
var galleryWindow = { built: false, learned: false, shown: [], positions: new Map(), chunks: [], columns: 1, rowHeight: 420 };
// rows: { tbody, key, label, cells: [{ col, indexes }], byCol, stack, tr (while in the page), height };
// order: the grid's jobs in its order; at: index → { row, order }.
var gridWindow = { rows: [], order: [], at: new Map(), tileHeight: 0 };
var windowQueued = false;

// The gallery's columns: as laid out when it shows, else as its CSS would lay them out (auto-fill).
function galleryColumns() {
  var root = byId('gallery');
  if (!root.hidden && root.offsetWidth > 0) return getComputedStyle(root).gridTemplateColumns.split(' ').length;
  var width = document.querySelector('main').clientWidth - 32;
  return Math.max(1, Math.floor((width + GALLERY_GAP) / (GALLERY_MIN_COLUMN + GALLERY_GAP)));
}
function sameList(a, b) {
  if (a.length !== b.length) return false;
  for (var at = 0; at < a.length; at++) if (a[at] !== b[at]) return false;
  return true;
}
// The gallery of these jobs (entry indexes, in order) as chunks of rows, none made yet: updateWindow
// makes those near the view.
function buildGalleryWindow(shown) {
  var root = byId('gallery');
  forgetCards(root);
  root.textContent = '';
  galleryWindow.built = true;
  galleryWindow.shown = shown;
  galleryWindow.positions = new Map();
  shown.forEach(function (index, position) { galleryWindow.positions.set(index, position); });
  galleryWindow.columns = galleryColumns();
  galleryWindow.chunks = [];
  var size = galleryWindow.columns * CHUNK_ROWS;
  for (var start = 0; start < shown.length; start += size) {
    galleryWindow.chunks.push({ start: start, end: Math.min(shown.length, start + size), node: null, height: 0 });
  }
  placeSpacers();
}
// A chunk's height: as last laid out, else as its rows would be at the height rows have so far.
function chunkHeight(chunk) {
  if (chunk.node) return chunk.node.offsetHeight;
  if (chunk.height > 0) return chunk.height;
  var rows = Math.ceil((chunk.end - chunk.start) / galleryWindow.columns);
  return rows * galleryWindow.rowHeight + (rows - 1) * GALLERY_GAP;
}
function renderChunk(chunk) {
  if (chunk.node) return;
  makeChunk(chunk);
  placeSpacers();
}
function makeChunk(chunk) {
  var at = galleryWindow.chunks.indexOf(chunk);
  var node = el('div', 'chunk');
  for (var position = chunk.start; position < chunk.end; position++) node.appendChild(card(galleryWindow.shown[position]));
  var after = null;
  for (var next = at + 1; next < galleryWindow.chunks.length && !after; next++) after = galleryWindow.chunks[next].node;
  byId('gallery').insertBefore(node, after);
  chunk.node = node;
}
// Its height is read before, with the others' (one layout, not one a chunk).
function emptyChunk(chunk) {
  forgetCards(chunk.node);
  chunk.node.remove();
  chunk.node = null;
}
// Between the chunks in the page, one empty box per run of chunks that are not, as tall as they were
// (the gallery lays out a handful of boxes, not thousands of cards).
function placeSpacers() {
  var root = byId('gallery');
  Array.prototype.forEach.call(root.querySelectorAll(':scope > .spacer'), function (node) { node.remove(); });
  var run = 0;
  var height = 0;
  var add = function (before) {
    if (run === 0) return;
    var spacer = el('div', 'spacer');
    spacer.style.height = height + (run - 1) * GALLERY_GAP + 'px';
    root.insertBefore(spacer, before);
    run = 0;
    height = 0;
  };
  galleryWindow.chunks.forEach(function (chunk) {
    if (chunk.node) add(chunk.node);
    else { run++; height += chunkHeight(chunk); }
  });
  add(null);
}
// What an observer watches in cards that leave the DOM (it would keep them alive).
function forgetCards(root) {
  // A canvas' pixels go now, not when its card is collected.
  Array.prototype.forEach.call(root.querySelectorAll('canvas'), function (canvas) {
    var context = canvas.getContext('bitmaprenderer');
    if (context) context.transferFromImageBitmap(null);
  });
  if (!videoObserver) return;
  Array.prototype.forEach.call(root.querySelectorAll('video[data-src]'), function (video) { videoObserver.unobserve(video); });
}
function holdsFocus(node) {
  var focused = document.activeElement;
  return focused !== null && focused !== document.body && node.contains(focused);
}
// Whether a box is within the view and its margin.
function nearView(box) {
  var margin = window.innerHeight * WINDOW_MARGIN;
  return box.bottom > -margin && box.top < window.innerHeight + margin && box.bottom > box.top;
}

function updateGalleryWindow() {
  var root = byId('gallery');
  if (root.hidden || !galleryWindow.built) return;
  if (galleryColumns() !== galleryWindow.columns) {
    var keep = focusedCard();
    buildGalleryWindow(galleryWindow.shown);
    if (keep) refocus(keep);
  }
  var chunks = galleryWindow.chunks;
  // Where each chunk is, from the gallery's top and the chunks' heights; making one may move those
  // below it (its estimate was off): look again until nothing changes.
  for (var round = 0; round < 4; round++) {
    var top = root.getBoundingClientRect().top;
    var near = chunks.map(function (chunk) {
      var height = chunkHeight(chunk);
      var box = { top: top, bottom: top + height };
      top += height + GALLERY_GAP;
      return nearView(box);
    });
    var far = chunks.filter(function (chunk, at) { return !near[at] && chunk.node && !holdsFocus(chunk.node); });
    var coming = chunks.filter(function (chunk, at) { return near[at] && !chunk.node; });
    if (far.length === 0 && coming.length === 0) return;
    far.forEach(function (chunk) { chunk.height = chunk.node.offsetHeight; });
    far.forEach(emptyChunk);
    coming.forEach(makeChunk);
    placeSpacers();
    learnRowHeight();
  }
}
// The first chunks shown tell how tall a row is: the chunks never shown are sized by it.
function learnRowHeight() {
  if (galleryWindow.learned) return;
  var rows = 0;
  var height = 0;
  galleryWindow.chunks.forEach(function (chunk) {
    if (!chunk.node) return;
    var count = Math.ceil((chunk.end - chunk.start) / galleryWindow.columns);
    rows += count;
    height += chunk.node.offsetHeight - (count - 1) * GALLERY_GAP;
  });
  if (rows === 0) return;
  galleryWindow.learned = true;
  galleryWindow.rowHeight = Math.max(40, height / rows);
  placeSpacers();
}

// A grid row of a table's body: its label and cells are made when it nears the view, and between the
// rows made, one empty row per run of rows that are not, as tall as they were.
function addGridRow(tbody, item, cells) {
  var row = { tbody: tbody, key: item.key, label: item.label, cells: cells, byCol: new Map(), stack: 1, tr: null, height: 0, number: gridWindow.rows.length };
  cells.forEach(function (cell) {
    row.byCol.set(cell.col, cell.indexes);
    row.stack = Math.max(row.stack, cell.indexes.length);
    cell.indexes.forEach(function (index) {
      gridWindow.at.set(index, { row: row.number, order: gridWindow.order.length });
      gridWindow.order.push(index);
    });
  });
  gridWindow.rows.push(row);
}
function resetGridWindow() {
  gridWindow.rows = [];
  gridWindow.order = [];
  gridWindow.at = new Map();
}
function gridRowHeight(row) {
  if (row.tr) return row.tr.offsetHeight;
  if (row.height > 0) return row.height;
  var tileHeight = gridWindow.tileHeight || state.size + 2;
  return Math.max(32, row.stack * tileHeight + 6);
}
function renderGridRow(row) {
  if (row.tr) return;
  makeGridRow(row);
  placeGridSpacers();
}
function makeGridRow(row) {
  var line = el('tr');
  line.setAttribute('data-row', row.key);
  var th = el('th', '', row.label);
  th.setAttribute('scope', 'row');
  line.appendChild(th);
  row.cells.forEach(function (cell) {
    var td = el('td');
    td.setAttribute('data-col', cell.col);
    cell.indexes.forEach(function (index) { td.appendChild(tile(index)); });
    line.appendChild(td);
  });
  var after = null;
  for (var next = row.number + 1; next < gridWindow.rows.length && !after && gridWindow.rows[next].tbody === row.tbody; next++) after = gridWindow.rows[next].tr;
  row.tbody.insertBefore(line, after);
  row.tr = line;
}
// Its height is read before: reading it here would lay the table out again for each row let go.
function emptyGridRow(row) {
  forgetCards(row.tr);
  row.tr.remove();
  row.tr = null;
}
function placeGridSpacers() {
  Array.prototype.forEach.call(byId('grid').querySelectorAll('tr.spacer'), function (node) { node.remove(); });
  var run = [];
  var add = function (before) {
    if (run.length === 0) return;
    var first = run[0];
    var spacer = el('tr', 'spacer');
    var cell = el('td');
    cell.colSpan = first.cells.length + 1;
    cell.style.height = run.reduce(function (sum, row) { return sum + gridRowHeight(row); }, 0) + 'px';
    spacer.appendChild(cell);
    spacer.gridRows = run;
    first.tbody.insertBefore(spacer, before);
    run = [];
  };
  gridWindow.rows.forEach(function (row, at) {
    if (run.length > 0 && run[0].tbody !== row.tbody) add(null);
    if (row.tr) add(row.tr);
    else run.push(row);
  });
  add(null);
}
// The slider changed the tiles' size: rows not in the page take the new estimate.
function resizeGridRows() {
  gridWindow.tileHeight = 0;
  gridWindow.rows.forEach(function (row) { row.height = 0; });
  placeGridSpacers();
  scheduleWindow();
}
function updateGridWindow() {
  var grid = byId('grid');
  if (grid.hidden) return;
  for (var round = 0; round < 4; round++) {
    // Where each row is: its own box, or its place in the empty row that stands for it.
    var near = new Map();
    Array.prototype.forEach.call(grid.querySelectorAll('tbody > tr'), function (tr) {
      var box = tr.getBoundingClientRect();
      if (!tr.gridRows) return;
      var top = box.top;
      tr.gridRows.forEach(function (row) {
        var height = gridRowHeight(row);
        near.set(row, nearView({ top: top, bottom: top + height }));
        top += height;
      });
    });
    // Every box is read first, then the page changed at once: one layout of the table, not one a row.
    var far = [];
    var coming = [];
    gridWindow.rows.forEach(function (row) {
      var isNear = row.tr ? nearView(row.tr.getBoundingClientRect()) : near.get(row);
      if (!isNear && row.tr && !holdsFocus(row.tr)) { row.height = row.tr.offsetHeight; far.push(row); }
      else if (isNear && !row.tr) coming.push(row);
    });
    if (far.length === 0 && coming.length === 0) return;
    far.forEach(emptyGridRow);
    coming.forEach(makeGridRow);
    placeGridSpacers();
    if (!gridWindow.tileHeight) {
      var shown = grid.querySelector('.tile');
      if (shown) {
        gridWindow.tileHeight = shown.offsetHeight + 2;
        placeGridSpacers();
      }
    }
  }
}

// The cards of the view in and near it, now; while printing, none is emptied.
function updateWindow() {
  windowQueued = false;
  if (printing) return;
  if (state.view === 'grid') updateGridWindow(); else updateGalleryWindow();
}
function scheduleWindow() {
  if (windowQueued) return;
  windowQueued = true;
  requestAnimationFrame(updateWindow);
}
// Every card of the view (print).
function renderWholeView() {
  if (state.view === 'grid') { gridWindow.rows.forEach(function (row) { if (!row.tr) makeGridRow(row); }); placeGridSpacers(); }
  else { galleryWindow.chunks.forEach(function (chunk) { if (!chunk.node) makeChunk(chunk); }); placeSpacers(); }
}

// The jobs the view shows, in its order.
function viewOrder() {
  return state.view === 'grid' ? gridWindow.order.slice() : galleryWindow.shown.slice();
}
// The card of a job in the current view, made if it was not (undefined when the view does not show it).
function cardOf(index) {
  var node;
  if (state.view === 'grid') {
    var at = gridWindow.at.get(index);
    if (at === undefined) return undefined;
    var row = gridWindow.rows[at.row];
    renderGridRow(row);
    node = row.tr.querySelector('.card[data-index="' + index + '"]');
  } else {
    var position = galleryWindow.positions.get(index);
    if (position === undefined) return undefined;
    var chunk = galleryWindow.chunks[Math.floor(position / (galleryWindow.columns * CHUNK_ROWS))];
    renderChunk(chunk);
    node = chunk.node.querySelector('.card[data-index="' + index + '"]');
  }
  return node || undefined;
}
function focusedCard() {
  var focused = document.activeElement;
  var node = focused && focused.closest ? focused.closest('.card[data-index]') : null;
  if (!node) return null;
  var target = focused.closest('[data-file]');
  return { index: Number(node.getAttribute('data-index')), file: target ? target.getAttribute('data-file') : null };
}
function refocus(kept) {
  var node = cardOf(kept.index);
  if (!node) return;
  var target = (kept.file !== null && node.querySelector('.open[data-file="' + kept.file + '"]')) || node.querySelector('.open');
  if (target) target.focus({ preventScroll: true });
}

function setupWindow() {
  window.addEventListener('scroll', scheduleWindow, { passive: true });
  window.addEventListener('resize', scheduleWindow);
}
`;
