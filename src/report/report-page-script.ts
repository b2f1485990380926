import type { JobStatus } from '../state/job-state.js';

/** Statuses in the order the page lists them. */
export const JOB_STATUSES_IN_ORDER: readonly JobStatus[] = [
  'done',
  'failed',
  'deferred',
  'uncertain',
  'open',
  'creating',
  'pending',
];

/**
 * The report page's script (plain ES2017, no modules, no network). It reads the JSON data block and
 * builds the DOM with `textContent` and `setAttribute` only, never HTML strings, so nothing a user wrote
 * can become markup. Cards are built in batches per animation frame and media load lazily (images with
 * `loading="lazy"`, videos get their source when they scroll into view) so 5,000 results stay responsive.
 */
export const REPORT_PAGE_SCRIPT = String.raw`
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('report-data').textContent);
  var entries = data.entries;
  var byId = function (id) { return document.getElementById(id); };
  var filters = { status: '', axes: {} };
  var cards = [];
  var BATCH = 250;

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  // Links come from the runner (relative paths) or the service (result URLs); allow nothing else.
  function safeHref(href) {
    return /^[a-z][a-z0-9+.-]*:/i.test(href) && !/^https?:/i.test(href) ? '#' : href;
  }
  function distinct(list) {
    var seen = new Map();
    list.forEach(function (value) { if (value !== undefined && !seen.has(String(value))) seen.set(String(value), value); });
    return Array.from(seen.keys());
  }
  function option(select, value, label) {
    var node = el('option', '', label === undefined ? value : label);
    node.value = value;
    select.appendChild(node);
  }
  function matches(entry, skipAxes) {
    if (filters.status !== '' && entry.status !== filters.status) return false;
    for (var axis in filters.axes) {
      if (skipAxes && skipAxes.indexOf(axis) >= 0) continue;
      var wanted = filters.axes[axis];
      if (wanted !== '' && String(entry.matrix[axis]) !== wanted) return false;
    }
    return true;
  }
  function describeValue(value) {
    return typeof value === 'string' ? value : JSON.stringify(value);
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

  function thumb(entry) {
    var box = el('div', 'thumb');
    if (entry.files.length === 0) {
      box.appendChild(el('div', 'empty', entry.status === 'done' ? 'no file' : entry.status));
      return box;
    }
    entry.files.forEach(function (file, index) {
      var href = safeHref(file.href);
      if (file.mediaType === 'video') {
        var video = el('video');
        video.controls = true;
        video.preload = 'none';
        video.muted = true;
        video.setAttribute('playsinline', '');
        video.setAttribute('data-src', href);
        video.setAttribute('aria-label', entry.id + ' result ' + (index + 1));
        if (videoObserver) videoObserver.observe(video); else video.src = href;
        box.appendChild(video);
        return;
      }
      var link = el('a');
      link.href = href;
      link.target = '_blank';
      link.rel = 'noopener';
      link.title = 'Open the full-size file';
      if (file.mediaType === 'image') {
        var img = el('img');
        img.loading = 'lazy';
        img.decoding = 'async';
        img.alt = entry.id + ' result ' + (index + 1);
        img.src = href;
        link.appendChild(img);
      } else {
        link.appendChild(el('span', 'empty', 'open file ' + (index + 1)));
      }
      box.appendChild(link);
    });
    return box;
  }

  function card(entry) {
    var node = el('article', 'card status-' + entry.status);
    node.setAttribute('data-id', entry.id);
    node.setAttribute('data-status', entry.status);
    node.appendChild(thumb(entry));
    var body = el('div', 'body');
    var title = el('div', 'id', entry.id + ' ');
    title.appendChild(el('span', 'badge ' + entry.status, entry.status));
    body.appendChild(title);
    if (entry.prompt !== undefined) body.appendChild(el('div', 'prompt', entry.prompt));
    var matrix = Object.keys(entry.matrix).map(function (axis) { return axis + '=' + describeValue(entry.matrix[axis]); });
    if (matrix.length > 0) body.appendChild(el('div', 'facts matrix', matrix.join(' · ')));
    var facts = [entry.model, entry.kind, entry.credits + ' credits', entry.attempts + (entry.attempts === 1 ? ' attempt' : ' attempts')];
    if (entry.serviceJobId) facts.push('job ' + entry.serviceJobId);
    body.appendChild(el('div', 'facts', facts.join(' · ')));
    var params = Object.keys(entry.params).map(function (name) { return name + ': ' + describeValue(entry.params[name]); });
    if (params.length > 0) body.appendChild(el('div', 'facts params', params.join(' · ')));
    entry.files.forEach(function (file, index) {
      if (file.mediaType !== 'video') return;
      var open = el('a', 'facts', 'open video ' + (index + 1));
      open.href = safeHref(file.href);
      open.target = '_blank';
      open.rel = 'noopener';
      body.appendChild(open);
    });
    if (entry.failureKind !== undefined || entry.error !== undefined) {
      body.appendChild(el('div', 'failure', [entry.failureKind, entry.error].filter(Boolean).join(': ')));
    }
    if (entry.advice !== undefined) body.appendChild(el('div', 'advice', entry.advice));
    node.appendChild(body);
    return node;
  }

  function buildGallery() {
    var gallery = byId('gallery');
    var next = 0;
    function batch() {
      var fragment = document.createDocumentFragment();
      var end = Math.min(entries.length, next + BATCH);
      for (; next < end; next++) {
        var node = card(entries[next]);
        node.hidden = !matches(entries[next]);
        cards.push(node);
        fragment.appendChild(node);
      }
      gallery.appendChild(fragment);
      if (next < entries.length) requestAnimationFrame(batch);
      else document.body.setAttribute('data-ready', 'true');
    }
    batch();
  }

  function buildGrid() {
    var grid = byId('grid');
    grid.textContent = '';
    var rowAxis = byId('grid-rows').value;
    var colAxis = byId('grid-cols').value;
    if (data.axes.length < 2) {
      grid.appendChild(el('p', 'note', 'The grid needs two matrix axes; this run has ' + data.axes.length + '.'));
      return;
    }
    if (rowAxis === colAxis) {
      grid.appendChild(el('p', 'note', 'Choose two different axes for rows and columns.'));
      return;
    }
    var shown = entries.filter(function (entry) { return matches(entry); });
    var inGrid = shown.filter(function (entry) { return rowAxis in entry.matrix && colAxis in entry.matrix; });
    var rows = distinct(inGrid.map(function (entry) { return entry.matrix[rowAxis]; }));
    var cols = distinct(inGrid.map(function (entry) { return entry.matrix[colAxis]; }));
    var cells = new Map();
    inGrid.forEach(function (entry) {
      var key = String(entry.matrix[rowAxis]) + '\u0000' + String(entry.matrix[colAxis]);
      if (!cells.has(key)) cells.set(key, []);
      cells.get(key).push(entry);
    });
    var table = el('table', 'grid');
    var head = table.createTHead().insertRow();
    head.appendChild(el('th', '', rowAxis + ' \\ ' + colAxis));
    cols.forEach(function (col) { head.appendChild(el('th', '', col)); });
    var body = table.createTBody();
    rows.forEach(function (row) {
      var line = body.insertRow();
      line.setAttribute('data-row', row);
      line.appendChild(el('th', '', row));
      cols.forEach(function (col) {
        var cell = line.insertCell();
        cell.setAttribute('data-col', col);
        (cells.get(row + '\u0000' + col) || []).forEach(function (entry) { cell.appendChild(card(entry)); });
      });
    });
    grid.appendChild(table);
    var outside = shown.length - inGrid.length;
    if (outside > 0) grid.appendChild(el('p', 'note', outside + ' shown job(s) have no value for ' + rowAxis + ' or ' + colAxis + '.'));
  }

  function refresh() {
    var count = 0;
    entries.forEach(function (entry, index) {
      var visible = matches(entry);
      if (visible) count++;
      if (cards[index]) cards[index].hidden = !visible;
    });
    byId('shown').textContent = count + ' of ' + entries.length + ' shown';
    var grid = byId('view').value === 'grid';
    byId('gallery').hidden = grid;
    byId('grid').hidden = !grid;
    byId('grid-axes').hidden = !grid;
    if (grid) buildGrid();
  }

  function setup() {
    var counts = {};
    var credits = 0;
    entries.forEach(function (entry) { counts[entry.status] = (counts[entry.status] || 0) + 1; credits += entry.credits; });
    var statusSelect = byId('filter-status');
    var parts = [];
    data.statuses.forEach(function (status) {
      if (!counts[status]) return;
      parts.push(counts[status] + ' ' + status);
      option(statusSelect, status, status + ' (' + counts[status] + ')');
    });
    byId('summary').textContent = entries.length + ' jobs: ' + parts.join(', ') + ' · ' + credits + ' credits';
    var axisBox = byId('axis-filters');
    data.axes.forEach(function (axis) {
      filters.axes[axis] = '';
      var label = el('label', '', axis + ' ');
      var select = el('select');
      select.setAttribute('data-axis', axis);
      option(select, '', 'all');
      distinct(entries.map(function (entry) { return entry.matrix[axis]; })).forEach(function (value) { option(select, value); });
      select.addEventListener('change', function () { filters.axes[axis] = select.value; refresh(); });
      label.appendChild(select);
      axisBox.appendChild(label);
    });
    ['grid-rows', 'grid-cols'].forEach(function (id, which) {
      var select = byId(id);
      data.axes.forEach(function (axis) { option(select, axis); });
      if (data.axes.length > which) select.value = data.axes[which];
      select.addEventListener('change', refresh);
    });
    statusSelect.addEventListener('change', function () { filters.status = statusSelect.value; refresh(); });
    byId('view').addEventListener('change', refresh);
    buildGallery();
    refresh();
  }
  setup();
})();
`;
