import type { ReportStatus } from './report-data.js';

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

/**
 * The report page's gallery, filters and grid (plain ES2017, no modules, no network), run inside the
 * page's one function scope with the lightbox (`report-page-lightbox.ts`), which calls `setup()`.
 * It reads the JSON data block and builds the DOM with `textContent` and `setAttribute` only, never
 * HTML strings, so nothing a user wrote can become markup. Only the cards near the view are built
 * (`report-page-window.ts`), media load lazily (images with `loading="lazy"`, videos get their source
 * when they scroll into view) and a thumbnail shows on a canvas drawn from its unpainted image, so
 * 5,000 results stay responsive and light. Filters, view and grid axes live in the URL hash, so a
 * reload or a shared link keeps them.
 */
export const REPORT_PAGE_SCRIPT = String.raw`
var data = JSON.parse(document.getElementById('report-data').textContent);
var entries = data.entries;
var byId = function (id) { return document.getElementById(id); };
// Read once: "expired" is judged when the page is opened, which may be days after it was written.
var NOW = Date.now();
var state = { view: 'gallery', status: '', axes: {}, rows: '', cols: '', split: '', size: 160 };
var TILE_SIZES = { min: 64, max: 320, step: 16, initial: 160 };
// Per axis: its values in order of first appearance, as { key, label }; per entry: its value keys.
var axisValues = {};
var entryKeys = [];

function el(tag, className, text) {
  var node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}
// Links come from the runner (relative paths) or the service (result URLs); allow nothing else. The
// scheme is read as the URL parser reads it (issue #32.8): leading and trailing C0 controls and spaces
// cut, tabs and newlines removed anywhere, so " javascript:" and "java\tscript:" are caught too.
function safeHref(href) {
  var url = String(href).replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '');
  return /^[a-z][a-z0-9+.-]*:/i.test(url) && !/^https?:/i.test(url) ? '#' : url;
}
function option(select, value, label) {
  var node = el('option', '', label === undefined ? value : label);
  node.value = value;
  select.appendChild(node);
  return node;
}
function shorten(text, max) {
  return text.length > max ? text.slice(0, max - 1) + '…' : text;
}
// A relative link as the path it was made from (the runner percent-encodes each segment).
function filePath(href) {
  try { return decodeURIComponent(href); } catch (error) { return href; }
}
function formatTime(iso) {
  var date = new Date(iso);
  return isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

// Matrix values: maps and lists are keyed by their JSON with sorted keys (as the runner compares
// them) and shown by a readable label: a map's name (or label, title, id), else short key=value text.
function canonical(value) {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return '[' + value.map(canonical).join(',') + ']';
  return '{' + Object.keys(value).sort().map(function (key) { return JSON.stringify(key) + ':' + canonical(value[key]); }).join(',') + '}';
}
function valueKey(value) {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : canonical(value);
}
function keyValueText(value) {
  if (value === null) return '(none)';
  if (typeof value !== 'object') return String(value);
  if (Array.isArray(value)) return value.map(keyValueText).join(', ');
  return Object.keys(value).map(function (key) { return key + '=' + keyValueText(value[key]); }).join(' ');
}
function valueLabel(value) {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    var named = ['name', 'label', 'title', 'id'].filter(function (key) {
      return typeof value[key] === 'string' || typeof value[key] === 'number';
    })[0];
    if (named !== undefined) return String(value[named]);
  }
  return shorten(keyValueText(value), 60);
}
function indexAxisValues() {
  data.axes.forEach(function (axis) { axisValues[axis] = { list: [], byKey: new Map() }; });
  entries.forEach(function (entry) {
    var keys = {};
    data.axes.forEach(function (axis) {
      var key = valueKey(entry.matrix[axis]);
      keys[axis] = key;
      var values = axisValues[axis];
      if (key === undefined || values.byKey.has(key)) return;
      var item = { key: key, label: valueLabel(entry.matrix[axis]), value: entry.matrix[axis] };
      values.byKey.set(key, item);
      values.list.push(item);
    });
    entryKeys.push(keys);
  });
  // Two values with one label (two maps named alike) are told apart by their full text.
  data.axes.forEach(function (axis) {
    var seen = new Map();
    axisValues[axis].list.forEach(function (item) { seen.set(item.label, (seen.get(item.label) || 0) + 1); });
    axisValues[axis].list.forEach(function (item) {
      if (seen.get(item.label) > 1) item.label = shorten(item.label + ' (' + keyValueText(item.value) + ')', 90);
    });
  });
}
function labelOf(axis, key) {
  var item = axisValues[axis].byKey.get(key);
  return item ? item.label : '';
}

// Which filters an entry fails: 0 shows it; the name of the one it fails (for that filter's counts).
function missedFilter(index) {
  var missed = null;
  var misses = 0;
  if (state.status !== '' && entries[index].status !== state.status) { misses++; missed = 'status'; }
  if (typeof reviewFilterMiss === 'function' && reviewFilterMiss(index)) { misses++; missed = 'review'; }
  for (var axis in state.axes) {
    var wanted = state.axes[axis];
    if (wanted === '' || entryKeys[index][axis] === wanted) continue;
    if (++misses > 1) return false;
    missed = axis;
  }
  return misses === 0 ? true : missed;
}

var videoObserver = 'IntersectionObserver' in window ? new IntersectionObserver(function (seen) {
  seen.forEach(function (item) {
    if (!item.isIntersecting) return;
    var video = item.target;
    videoObserver.unobserve(video);
    video.preload = 'metadata';
    // '#t=0.1' makes the first frame the poster.
    video.src = video.getAttribute('data-src') + '#t=0.1';
  });
}, { rootMargin: '400px' }) : null;

function isExpired(file) {
  return file.remote && file.expiresAt !== undefined && Date.parse(file.expiresAt) <= NOW;
}
// Recorded as saved, but not in this machine's output and not fetched again (#30.2).
function isUnavailable(file) {
  return file.missing !== undefined || isExpired(file);
}
// What stands in for a result that cannot be shown: why, and until when its link works.
function stateBox(file, reason) {
  var box = el('div', 'state-box');
  if (file.missing !== undefined) {
    box.classList.add('missing');
    box.appendChild(el('strong', '', 'Missing here'));
    box.appendChild(el('span', '', file.missing));
  } else if (isExpired(file)) {
    box.classList.add('expired');
    box.appendChild(el('strong', '', 'Expired'));
    box.appendChild(el('span', '', 'not downloaded; the service deleted it ' + formatTime(file.expiresAt)));
  } else if (file.remote) {
    box.classList.add('remote');
    box.appendChild(el('strong', '', 'Not downloaded'));
    box.appendChild(el('span', '', reason || (file.expiresAt ? 'link works until ' + formatTime(file.expiresAt) : 'link expiry unknown')));
  } else {
    box.classList.add('missing');
    box.appendChild(el('strong', '', 'File not found'));
    box.appendChild(el('span', '', reason || filePath(file.href)));
  }
  return box;
}
// The small thumbnail when the runner made one (the file itself is for the lightbox), loaded lazily
// (eagerly while printing: report-page-media.ts).
function lazyImage(file, href, name) {
  var img = el('img', 'source');
  img.loading = printing ? 'eager' : 'lazy';
  img.decoding = 'async';
  img.alt = name;
  if (file.thumb) img.setAttribute('data-full', href);
  img.src = file.thumb ? safeHref(file.thumb) : href;
  return img;
}
// What shows the thumbnail: a canvas drawn from the (unpainted) image once it loads, at the size it
// shows. Chromium keeps the decoded pixels of the last 1,000 images it painted (~190 MB for 256 px
// thumbnails, whatever has left the page), but not a canvas' pixels, which go with its card.
function thumbCanvas(name) {
  var canvas = el('canvas');
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', name);
  canvas.width = 0;
  canvas.height = 0;
  return canvas;
}
// The canvases being drawn (print waits for them).
var thumbDraws = new Set();
function drawThumb(img) {
  var canvas = img.nextElementSibling;
  if (!canvas || canvas.tagName !== 'CANVAS' || !img.naturalWidth) return;
  var context = canvas.getContext('bitmaprenderer');
  if (!context) { img.classList.remove('source'); canvas.remove(); return; }
  var box = img.parentNode;
  canvas.removeAttribute('data-drawn');
  var ratio = window.devicePixelRatio || 1;
  var scale = box.clientWidth > 0 && box.clientHeight > 0 ? Math.min(box.clientWidth / img.naturalWidth, box.clientHeight / img.naturalHeight) * ratio : 1;
  var width = Math.max(1, Math.round(img.naturalWidth * scale));
  var height = Math.max(1, Math.round(img.naturalHeight * scale));
  // An ImageBitmap is decoded pixels of its own: drawing the image itself would decode it through
  // the canvases' cache of decoded images, as painting it does.
  var drawn = createImageBitmap(img, { resizeWidth: width, resizeHeight: height, resizeQuality: 'high' }).then(function (bitmap) {
    if (!canvas.isConnected) { bitmap.close(); return; }
    // The canvas' own size is the bitmap's: left 0 × 0, object-fit had no ratio to keep and every
    // result was stretched to its box (#33.1).
    canvas.width = bitmap.width;
    canvas.height = bitmap.height;
    context.transferFromImageBitmap(bitmap);
    canvas.setAttribute('data-drawn', '');
  }, function () {
    img.classList.remove('source');
    canvas.remove();
  }).then(function () { thumbDraws.delete(drawn); });
  thumbDraws.add(drawn);
}
// The tiles' size changed: their canvases are drawn again at it.
function redrawThumbs(root) {
  Array.prototype.forEach.call(root.querySelectorAll('img.source'), function (img) { if (img.complete) drawThumb(img); });
}
// A thumbnail whose file does not load (moved, deleted, a dead link) says so instead of a broken image.
function replaceBroken(media) {
  var holder = media.closest('[data-file]');
  var index = holder && holder.closest('[data-index]');
  if (!index) return;
  var file = entries[Number(index.getAttribute('data-index'))].files[Number(holder.getAttribute('data-file'))];
  var reason = file.remote ? 'could not load the link' + (file.expiresAt ? ' (works until ' + formatTime(file.expiresAt) + ')' : '') : undefined;
  holder.textContent = '';
  holder.classList.add('broken');
  holder.appendChild(stateBox(file, reason));
}

function thumb(entry) {
  var box = el('div', 'thumb');
  entry.files.forEach(function (file, index) {
    var href = safeHref(file.href);
    var link = el('a', 'open');
    link.href = href;
    link.setAttribute('data-file', String(index));
    link.title = 'Open in the lightbox (Ctrl+click: the file)';
    var name = entry.id + ' result ' + (index + 1);
    if (isUnavailable(file)) {
      link.removeAttribute('href');
      link.tabIndex = 0;
      link.setAttribute('role', 'button');
      link.setAttribute('aria-label', name + ': expired');
      link.appendChild(stateBox(file));
    } else if (file.mediaType === 'video') {
      var video = el('video');
      video.preload = 'none';
      video.muted = true;
      video.setAttribute('playsinline', '');
      video.setAttribute('data-src', href);
      video.setAttribute('aria-label', name);
      if (videoObserver) videoObserver.observe(video); else video.src = href;
      link.appendChild(video);
      link.appendChild(el('span', 'play', '▶'));
    } else if (file.mediaType === 'image') {
      link.appendChild(lazyImage(file, href, name));
      link.appendChild(thumbCanvas(name));
    } else {
      link.appendChild(el('span', 'state-box', 'file ' + (index + 1)));
    }
    if (file.remote && !isExpired(file)) {
      link.appendChild(el('span', 'corner', file.expiresAt ? 'not downloaded · link until ' + formatTime(file.expiresAt) : 'not downloaded'));
    }
    box.appendChild(link);
  });
  return box;
}

var WAITING = {
  pending: 'Not sent yet: the next apply sends it.',
  creating: 'Sent; the answer did not arrive yet.',
  open: 'Running at the service: the next apply collects it.',
  done: 'Done, without a result file.',
};

// Why a job has no result (its failure and advice, when it may be retried), for cards and the lightbox.
function reasonOf(entry) {
  var box = el('div', 'reason');
  if (entry.failureKind !== undefined || entry.error !== undefined) {
    box.appendChild(el('div', 'failure', [entry.failureKind, entry.error].filter(Boolean).join(': ')));
  } else if (WAITING[entry.status]) {
    box.appendChild(el('div', 'waiting', WAITING[entry.status]));
  }
  if (entry.notBefore !== undefined) box.appendChild(el('div', 'retry', 'Retry after ' + formatTime(entry.notBefore)));
  if (entry.advice !== undefined) box.appendChild(adviceNode(entry.advice));
  var owed = owedAdvice(entry);
  if (owed) box.appendChild(adviceNode(owed));
  return box;
}
// Advice names commands in backticks, as runner status prints it: each shows as code with a Copy button.
function adviceNode(text) {
  var box = el('div', 'advice');
  var parts = text.split('\x60');
  if (parts.length % 2 === 0) { box.textContent = text; return box; }
  parts.forEach(function (part, at) {
    if (at % 2 === 1) box.appendChild(commandNode(part));
    else if (part !== '') box.appendChild(document.createTextNode(part));
  });
  return box;
}
function commandNode(command) {
  var box = el('span', 'command');
  box.appendChild(el('code', '', command));
  var copy = el('button', 'copy copy-command', 'Copy');
  copy.type = 'button';
  copy.title = 'Copy this command';
  copy.setAttribute('aria-label', 'Copy the command ' + command);
  copy.addEventListener('click', function () { copyText(command, copy); });
  box.appendChild(copy);
  return box;
}
// A done job whose results are not all here: the command that fetches them, as runner status says.
function owedAdvice(entry) {
  if (entry.status !== 'downloading') return undefined;
  var owed = entry.files.filter(function (file) { return file.remote; });
  if (owed.length > 0 && owed.every(isExpired)) return 'The service deleted ' + (owed.length === 1 ? 'this result' : 'these results') + ': it cannot be fetched again.';
  var command = data.commands ? data.commands.downloadOnly : 'runner apply … --download-only';
  return '\x60' + command + '\x60 fetches ' + (owed.length === 1 ? 'it' : 'them') + ' while the links live; it creates and pays for nothing.';
}

// What needs someone (failed, uncertain, deferred, results not on this machine) comes first in the
// gallery (#33.4), the worst first; the rest stay in manifest order.
var ATTENTION = { failed: 1, uncertain: 2, deferred: 3, downloading: 4 };
function attentionFirst(shown) {
  var first = shown.filter(function (index) { return ATTENTION[entries[index].status]; });
  if (first.length === 0) return shown;
  first.sort(function (a, b) { return ATTENTION[entries[a].status] - ATTENTION[entries[b].status] || a - b; });
  return first.concat(shown.filter(function (index) { return !ATTENTION[entries[index].status]; }));
}
var ATTENTION_LABEL = { failed: 'failed', uncertain: 'uncertain', deferred: 'deferred', downloading: 'not on this machine' };
function attentionSummary(counts) {
  var parts = Object.keys(ATTENTION).filter(function (status) { return counts[status]; })
    .map(function (status) { return counts[status] + ' ' + ATTENTION_LABEL[status]; });
  var box = byId('attention');
  box.hidden = parts.length === 0;
  box.textContent = parts.length === 0 ? '' : 'Needs attention: ' + parts.join(', ') + ' (first in the gallery, with what to run)';
}
function matrixText(entry) {
  return data.axes.filter(function (axis) { return axis in entry.matrix; })
    .map(function (axis) { return axis + '=' + labelOf(axis, valueKey(entry.matrix[axis])); }).join(' · ');
}
function paramText(value) {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function card(index) {
  var entry = entries[index];
  var compact = entry.files.length === 0;
  var node = el('article', 'card status-' + entry.status + (compact ? ' compact' : ''));
  node.setAttribute('data-id', entry.id);
  node.setAttribute('data-index', String(index));
  node.setAttribute('data-status', entry.status);
  if (!compact) node.appendChild(thumb(entry));
  var body = el('div', 'body');
  var title = el('h2', 'id', entry.id + ' ');
  title.appendChild(el('span', 'badge ' + entry.status, entry.status));
  body.appendChild(title);
  if (compact || entry.status !== 'done') body.appendChild(reasonOf(entry));
  if (entry.prompt !== undefined) body.appendChild(el('div', 'prompt', entry.prompt));
  var matrix = matrixText(entry);
  if (matrix !== '') body.appendChild(el('div', 'facts matrix', matrix));
  var facts = [entry.model, entry.kind, entry.credits + ' credits', entry.attempts + (entry.attempts === 1 ? ' attempt' : ' attempts')];
  if (entry.serviceJobId) facts.push('job ' + entry.serviceJobId);
  if (entry.machine) facts.push('on ' + entry.machine);
  body.appendChild(el('div', 'facts', facts.join(' · ')));
  if (!compact) {
    var params = Object.keys(entry.params).map(function (name) { return name + ': ' + paramText(entry.params[name]); });
    if (params.length > 0) body.appendChild(el('div', 'facts params', params.join(' · ')));
  } else {
    var details = el('button', 'open details', 'Details');
    details.type = 'button';
    body.appendChild(details);
  }
  if (typeof reviewCardHook === 'function') reviewCardHook(node, body, index);
  node.appendChild(body);
  return node;
}

// A grid cell's result: the image only (its job and status in its name and tooltip; no prompt or
// facts), and below it what other parts add to a card (the review's buttons); a job without a result
// shows its status. Class card, so the lightbox, the review and the arrow keys treat it as one.
function tile(index) {
  var entry = entries[index];
  var node = el('div', 'card tile status-' + entry.status);
  node.setAttribute('data-id', entry.id);
  node.setAttribute('data-index', String(index));
  node.setAttribute('data-status', entry.status);
  node.title = entry.id + ' · ' + entry.status + (matrixText(entry) ? ' · ' + matrixText(entry) : '');
  if (entry.files.length > 0) node.appendChild(thumb(entry));
  else {
    var open = el('button', 'open state-box', entry.status);
    open.type = 'button';
    open.setAttribute('aria-label', entry.id + ': ' + entry.status);
    node.appendChild(open);
  }
  // What other parts mark on a tile (the review's verdict), if anything.
  if (typeof reviewTileHook === 'function') reviewTileHook(node, index);
  return node;
}

// The values of an axis that the given jobs have, in the axis' order.
function presentValues(axis, indexes) {
  var keys = new Set(indexes.map(function (index) { return entryKeys[index][axis]; }));
  return axisValues[axis].list.filter(function (item) { return keys.has(item.key); });
}

function gridTable(indexes, rowAxis, colAxis) {
  var rows = presentValues(rowAxis, indexes);
  var cols = presentValues(colAxis, indexes);
  var cells = new Map();
  indexes.forEach(function (index) {
    var key = entryKeys[index][rowAxis] + '\u0000' + entryKeys[index][colAxis];
    if (!cells.has(key)) cells.set(key, []);
    cells.get(key).push(index);
  });
  var table = el('table', 'grid');
  var head = table.createTHead().insertRow();
  head.appendChild(el('th', 'corner', rowAxis + ' \\ ' + colAxis));
  cols.forEach(function (col) {
    var th = el('th', '', col.label);
    th.setAttribute('scope', 'col');
    th.setAttribute('data-col', col.key);
    head.appendChild(th);
  });
  var body = table.createTBody();
  // The rows come (label, cells, tiles) when they near the view: report-page-window.ts.
  rows.forEach(function (row) {
    addGridRow(body, row, cols.map(function (col) {
      return { col: col.key, indexes: cells.get(row.key + '\u0000' + col.key) || [] };
    }));
  });
  placeGridSpacers();
  return table;
}

function buildGrid(shown) {
  var grid = byId('grid');
  forgetCards(grid);
  grid.textContent = '';
  resetGridWindow();
  var rowAxis = state.rows;
  var colAxis = state.cols;
  var split = state.split;
  if (data.axes.length < 2) {
    grid.appendChild(el('p', 'note', 'The grid needs two matrix axes; this run has ' + data.axes.length + '.'));
    return 0;
  }
  if (rowAxis === colAxis) {
    grid.appendChild(el('p', 'note', 'Choose two different axes for rows and columns.'));
    return 0;
  }
  var inGrid = shown.filter(function (index) { return entryKeys[index][rowAxis] !== undefined && entryKeys[index][colAxis] !== undefined; });
  grid.style.setProperty('--tile', state.size + 'px');
  var image = gridImageOf(rowAxis, colAxis, split);
  if (image) {
    var link = el('a', 'grid-image', 'Grid image (PNG' + (image.transposed ? ', rows and columns swapped' : '') + ', every result)');
    link.href = safeHref(image.href);
    link.setAttribute('download', '');
    grid.appendChild(link);
  }
  // A third axis: one grid per value, each under its label (as a stack of cards per cell hid it).
  if (split !== '' && split !== rowAxis && split !== colAxis) {
    var groups = new Map();
    inGrid.forEach(function (index) {
      var key = entryKeys[index][split];
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(index);
    });
    presentValues(split, inGrid).forEach(function (item) { appendSection(grid, split + ' = ' + item.label, item.key, groups.get(item.key)); });
    if (groups.has(undefined)) appendSection(grid, split + ': no value', '', groups.get(undefined));
  } else {
    grid.appendChild(gridTable(inGrid, rowAxis, colAxis));
  }
  return shown.length - inGrid.length;
}
// The jobs the grid leaves out (no value for an axis it lays out), said above it (#33.4): named, up
// to a few, and the header counts them.
function outsideNote(shown, outside) {
  var ids = shown.filter(function (index) { return entryKeys[index][state.rows] === undefined || entryKeys[index][state.cols] === undefined; })
    .map(function (index) { return entries[index].id; });
  var named = ids.slice(0, 10).join(', ') + (ids.length > 10 ? ' and ' + (ids.length - 10) + ' more' : '');
  var note = el('p', 'note outside', outside + ' of the ' + shown.length + ' shown ' + (outside === 1 ? 'job is' : 'jobs are') +
    ' not in the grid: no value for ' + state.rows + ' or ' + state.cols + ' (' + named + '; the gallery shows ' + (outside === 1 ? 'it' : 'them') + ').');
  var grid = byId('grid');
  grid.insertBefore(note, grid.firstChild);
}
function appendSection(grid, title, key, indexes) {
  var section = el('section', 'grid-part');
  section.setAttribute('data-split', key);
  section.appendChild(el('h2', 'grid-title', title));
  section.appendChild(gridTable(indexes, state.rows, state.cols));
  grid.appendChild(section);
}
// The PNG the runner made of this layout (rows, columns, third axis), if any; the same with rows and
// columns swapped is offered too.
function gridImageOf(rows, cols, split) {
  var found = null;
  (data.gridImages || []).forEach(function (image) {
    if (found || (image.split || '') !== split) return;
    if (image.rows === rows && image.cols === cols) found = { href: image.href, transposed: false };
    else if (image.rows === cols && image.cols === rows) found = { href: image.href, transposed: true };
  });
  return found;
}

// Counts per filter option follow the other filters: an option's count is how many jobs it would show.
function updateCounts(counts, total) {
  var statusSelect = byId('filter-status');
  Array.prototype.forEach.call(statusSelect.options, function (node) {
    if (node.value === '') node.textContent = 'all (' + total.status + ')';
    else node.textContent = node.value + ' (' + (counts.status[node.value] || 0) + ')';
  });
  data.axes.forEach(function (axis) {
    var select = document.querySelector('select[data-axis="' + CSS.escape(axis) + '"]');
    Array.prototype.forEach.call(select.options, function (node, position) {
      if (position === 0) node.textContent = 'all (' + total[axis] + ')';
      else node.textContent = labelOf(axis, node.value) + ' (' + (counts[axis].get(node.value) || 0) + ')';
    });
  });
}

function refresh() {
  var counts = { status: {} };
  var total = { status: 0 };
  data.axes.forEach(function (axis) { counts[axis] = new Map(); total[axis] = 0; });
  var shown = [];
  for (var index = 0; index < entries.length; index++) {
    var missed = missedFilter(index);
    if (missed === false) continue;
    if (missed === true) shown.push(index);
    var keys = entryKeys[index];
    if (missed === true || missed === 'status') {
      counts.status[entries[index].status] = (counts.status[entries[index].status] || 0) + 1;
      total.status++;
    }
    for (var a = 0; a < data.axes.length; a++) {
      var axis = data.axes[a];
      if (missed !== true && missed !== axis) continue;
      total[axis]++;
      if (keys[axis] !== undefined) counts[axis].set(keys[axis], (counts[axis].get(keys[axis]) || 0) + 1);
    }
  }
  updateCounts(counts, total);
  var shownText = shown.length + ' of ' + entries.length + ' shown';
  byId('empty').hidden = shown.length > 0;
  var grid = state.view === 'grid';
  byId('gallery').hidden = grid;
  byId('grid').hidden = !grid || shown.length === 0;
  byId('grid-axes').hidden = !grid;
  // A gallery kept while the grid shows (its cards follow the review); made again when its jobs change.
  var ordered = attentionFirst(shown);
  if (!galleryWindow.built || !sameList(ordered, galleryWindow.shown)) buildGalleryWindow(ordered);
  if (grid) {
    var outside = buildGrid(shown);
    if (outside > 0) {
      shownText = (shown.length - outside) + ' of ' + entries.length + ' in the grid · ' + outside + ' not in it';
      outsideNote(shown, outside);
    }
  }
  byId('shown').textContent = shownText;
  updateWindow();
  if (typeof updateTally === 'function') updateTally();
  writeHash();
}

// The hash: view=grid&status=failed&rows=style&cols=product&f.product=latte (and open=ID&file=N
// while the lightbox shows a job). Values that name nothing on this page are ignored.
function readHash() {
  var params = new URLSearchParams(location.hash.replace(/^#/, ''));
  state.view = params.get('view') === 'grid' ? 'grid' : 'gallery';
  var status = params.get('status') || '';
  var listed = Array.prototype.some.call(byId('filter-status').options, function (node) { return node.value === status; });
  state.status = listed ? status : '';
  data.axes.forEach(function (axis) {
    var value = params.get('f.' + axis) || '';
    state.axes[axis] = axisValues[axis].byKey.has(value) ? value : '';
  });
  var rows = params.get('rows');
  var cols = params.get('cols');
  state.rows = data.axes.indexOf(rows) >= 0 ? rows : data.axes[0] || '';
  state.cols = data.axes.indexOf(cols) >= 0 ? cols : data.axes[1] || '';
  var split = params.get('split');
  state.split = split === '' || data.axes.indexOf(split) >= 0 ? split : defaultSplit();
  var size = Number(params.get('size'));
  state.size = size >= TILE_SIZES.min && size <= TILE_SIZES.max ? Math.round(size) : TILE_SIZES.initial;
  byId('grid-split').value = state.split;
  byId('grid-size').value = String(state.size);
  byId('view').value = state.view;
  byId('filter-status').value = state.status;
  byId('grid-rows').value = state.rows;
  byId('grid-cols').value = state.cols;
  if (typeof readReviewHash === 'function') readReviewHash(params);
  data.axes.forEach(function (axis) {
    document.querySelector('select[data-axis="' + CSS.escape(axis) + '"]').value = state.axes[axis];
  });
  return params;
}
// A third axis splits the grid by default, as an X/Y/Z plot does.
function defaultSplit() {
  return data.axes[2] || '';
}
var hashExtra = null;
function writeHash() {
  var params = new URLSearchParams();
  if (state.view !== 'gallery') params.set('view', state.view);
  if (state.status !== '') params.set('status', state.status);
  if (state.review) params.set('review', state.review);
  data.axes.forEach(function (axis) { if (state.axes[axis] !== '') params.set('f.' + axis, state.axes[axis]); });
  if (state.view === 'grid') {
    params.set('rows', state.rows);
    params.set('cols', state.cols);
    if (state.split !== defaultSplit()) params.set('split', state.split);
    if (state.size !== TILE_SIZES.initial) params.set('size', String(state.size));
  }
  if (hashExtra) Object.keys(hashExtra).forEach(function (name) { params.set(name, hashExtra[name]); });
  var hash = params.toString();
  if (location.hash.replace(/^#/, '') === hash) return;
  history.replaceState(null, '', hash === '' ? location.pathname + location.search : '#' + hash);
}
function clearFilters() {
  state.status = '';
  data.axes.forEach(function (axis) { state.axes[axis] = ''; });
  byId('filter-status').value = '';
  Array.prototype.forEach.call(document.querySelectorAll('select[data-axis]'), function (select) { select.value = ''; });
  refresh();
}

function setup() {
  indexAxisValues();
  var counts = {};
  var credits = 0;
  entries.forEach(function (entry) { counts[entry.status] = (counts[entry.status] || 0) + 1; credits += entry.credits; });
  var statusSelect = byId('filter-status');
  var parts = [];
  data.statuses.forEach(function (status) {
    if (!counts[status]) return;
    parts.push(counts[status] + ' ' + status);
    option(statusSelect, status);
  });
  byId('summary').textContent = entries.length + ' jobs: ' + parts.join(', ') + ' · ' + credits + ' credits';
  attentionSummary(counts);
  var axisBox = byId('axis-filters');
  data.axes.forEach(function (axis) {
    state.axes[axis] = '';
    var label = el('label', '', axis + ' ');
    var select = el('select');
    select.setAttribute('data-axis', axis);
    option(select, '', 'all');
    axisValues[axis].list.forEach(function (item) { option(select, item.key, item.label); });
    select.addEventListener('change', function () { state.axes[axis] = select.value; refresh(); });
    label.appendChild(select);
    axisBox.appendChild(label);
  });
  ['grid-rows', 'grid-cols'].forEach(function (id) {
    var select = byId(id);
    data.axes.forEach(function (axis) { option(select, axis); });
    select.addEventListener('change', function () {
      state[id === 'grid-rows' ? 'rows' : 'cols'] = select.value;
      refresh();
    });
  });
  var splitSelect = byId('grid-split');
  option(splitSelect, '', 'none');
  data.axes.forEach(function (axis) { option(splitSelect, axis); });
  splitSelect.addEventListener('change', function () { state.split = splitSelect.value; refresh(); });
  var slider = byId('grid-size');
  slider.min = String(TILE_SIZES.min);
  slider.max = String(TILE_SIZES.max);
  slider.step = String(TILE_SIZES.step);
  slider.addEventListener('change', function () { redrawThumbs(byId('grid')); });
  // Only the tiles' size changes: no grid is rebuilt while the slider moves.
  slider.addEventListener('input', function () {
    state.size = Number(slider.value);
    byId('grid').style.setProperty('--tile', state.size + 'px');
    resizeGridRows();
    writeHash();
  });
  statusSelect.addEventListener('change', function () { state.status = statusSelect.value; refresh(); });
  byId('view').addEventListener('change', function () { state.view = byId('view').value; refresh(); });
  byId('controls').addEventListener('submit', function (event) { event.preventDefault(); });
  byId('clear-filters').addEventListener('click', clearFilters);
  // Media errors and loads do not bubble: one listener catches them all on the way down.
  ['gallery', 'grid'].forEach(function (id) {
    byId(id).addEventListener('load', function (event) {
      if (event.target && event.target.tagName === 'IMG' && event.target.classList.contains('source')) drawThumb(event.target);
    }, true);
    byId(id).addEventListener('error', function (event) {
      var target = event.target;
      if (target && target.tagName === 'IMG' && target.hasAttribute('data-full')) {
        // A thumbnail deleted since the report was written: the file itself, then the broken state.
        target.src = target.getAttribute('data-full');
        target.removeAttribute('data-full');
      } else if (target && (target.tagName === 'IMG' || target.tagName === 'VIDEO')) replaceBroken(target);
    }, true);
  });
  // The grid's column labels and a focused card stay clear of the sticky header, however it wraps.
  var header = document.querySelector('header');
  var measureHeader = function () { document.documentElement.style.setProperty('--header-height', header.offsetHeight + 'px'); };
  measureHeader();
  if ('ResizeObserver' in window) new ResizeObserver(measureHeader).observe(header);
  if (typeof setupReview === 'function') setupReview();
  var params = readHash();
  window.addEventListener('hashchange', function () { readHash(); refresh(); });
  setupWindow();
  refresh();
  document.body.setAttribute('data-ready', 'true');
  if (typeof setupLightbox === 'function') setupLightbox(params);
}
`;
