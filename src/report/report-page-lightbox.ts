/**
 * The report page's lightbox and keyboard navigation (plain ES2017), run in the same function scope
 * as `REPORT_PAGE_SCRIPT` (its `entries`, `state`, `el`, `card`...), which calls `setupLightbox`.
 *
 * - A click (or Enter) on a thumbnail opens the result full size in a modal `<dialog>` with the job's
 *   prompt (and a copy button), status, model, params, matrix values, credits and attempts (with what
 *   each earlier one failed with); ←/→ step through the results the current filters and view show,
 *   +/−/0 or a click zoom, Esc closes and puts focus back on the thumbnail. A Ctrl/⌘-click still opens
 *   the file itself. The open job is kept in the URL hash (`open=ID&file=N`).
 * - Arrow keys move the focus between thumbnails: in the gallery by its columns, in the grid by its
 *   cells; Home/End go to the first/last shown result (its card made if it was far from the view).
 */
export const REPORT_PAGE_LIGHTBOX_SCRIPT = String.raw`
var ZOOMS = [1, 2, 4];
var lightbox = null;

function focusTargetOf(cardNode) {
  return cardNode && cardNode.querySelector('.open');
}
// The results the current view shows, in its order: a job with two results is two stops.
function shownItems() {
  var items = [];
  viewOrder().forEach(function (index) {
    var count = entries[index].files.length;
    if (count === 0) items.push({ index: index, file: -1 });
    for (var file = 0; file < count; file++) items.push({ index: index, file: file });
  });
  return items;
}

function buildLightbox() {
  var dialog = el('dialog', 'lightbox');
  dialog.id = 'lightbox';
  dialog.setAttribute('aria-labelledby', 'lb-title');
  var stage = el('div', 'lb-stage');
  var side = el('div', 'lb-side');
  var bar = el('div', 'lb-bar');
  var button = function (text, label, action) {
    var node = el('button', '', text);
    node.type = 'button';
    node.setAttribute('aria-label', label);
    node.title = label;
    node.addEventListener('click', action);
    bar.appendChild(node);
    return node;
  };
  var parts = {
    dialog: dialog,
    stage: stage,
    prev: button('←', 'Previous result (←)', function () { step(-1); }),
    next: button('→', 'Next result (→)', function () { step(1); }),
    position: bar.appendChild(el('span', 'lb-position')),
    zoom: button('Zoom', 'Zoom (+, −, 0 to fit)', function () { zoomTo(lightbox.zoom === ZOOMS.length - 1 ? 0 : lightbox.zoom + 1); }),
    close: button('✕', 'Close (Esc)', function () { dialog.close(); }),
    details: el('div', 'lb-details'),
  };
  side.appendChild(bar);
  side.appendChild(parts.details);
  dialog.appendChild(stage);
  dialog.appendChild(side);
  // On the document: a button disabled at either end drops the focus out of the dialog.
  document.addEventListener('keydown', function (event) {
    if (!dialog.open) return;
    var tag = event.target && event.target.tagName;
    if (tag === 'VIDEO' || tag === 'TEXTAREA' || event.altKey || event.ctrlKey || event.metaKey) return;
    var handled = true;
    if (event.key === 'ArrowLeft') step(-1);
    else if (event.key === 'ArrowRight') step(1);
    else if (event.key === '+' || event.key === '=') zoomTo(Math.min(ZOOMS.length - 1, lightbox.zoom + 1));
    else if (event.key === '-') zoomTo(Math.max(0, lightbox.zoom - 1));
    else if (event.key === '0') zoomTo(0);
    else handled = false;
    if (handled) event.preventDefault();
  });
  dialog.addEventListener('close', onClose);
  stage.addEventListener('click', function (event) {
    if (event.target && event.target.tagName === 'IMG') zoomTo(lightbox.zoom === 0 ? 1 : 0);
  });
  document.body.appendChild(dialog);
  return { parts: parts, items: [], position: 0, zoom: 0, opener: null };
}

function openLightbox(index, file) {
  if (!lightbox) lightbox = buildLightbox();
  lightbox.items = shownItems();
  var position = -1;
  lightbox.items.forEach(function (item, at) { if (position < 0 && item.index === index && (item.file === file || file < 0)) position = at; });
  if (position < 0) {
    lightbox.items = [{ index: index, file: entries[index].files.length === 0 ? -1 : Math.max(0, file) }];
    position = 0;
  }
  if (!lightbox.parts.dialog.open) lightbox.parts.dialog.showModal();
  show(position);
}

function step(delta) {
  var next = lightbox.position + delta;
  if (next >= 0 && next < lightbox.items.length) show(next);
}

function show(position) {
  var parts = lightbox.parts;
  lightbox.position = position;
  lightbox.zoom = 0;
  parts.zoom.textContent = 'Zoom';
  var item = lightbox.items[position];
  var entry = entries[item.index];
  var file = item.file >= 0 ? entry.files[item.file] : undefined;
  parts.stage.textContent = '';
  parts.stage.classList.remove('zoomed');
  parts.stage.appendChild(stageContent(entry, file));
  parts.position.textContent = (position + 1) + ' of ' + lightbox.items.length;
  parts.prev.disabled = position === 0;
  parts.next.disabled = position === lightbox.items.length - 1;
  parts.zoom.disabled = !file || file.mediaType !== 'image' || isExpired(file);
  parts.details.textContent = '';
  parts.details.appendChild(detailsOf(entry, item.file));
  hashExtra = { open: entry.id };
  if (entry.files.length > 1) hashExtra.file = String(item.file + 1);
  writeHash();
}

function stageContent(entry, file) {
  if (!file) {
    var box = el('div', 'lb-reason');
    box.appendChild(el('strong', '', entry.status));
    box.appendChild(reasonOf(entry));
    return box;
  }
  if (isUnavailable(file)) return stateBox(file);
  var href = safeHref(file.href);
  var media;
  if (file.mediaType === 'video') {
    media = el('video');
    media.controls = true;
    media.autoplay = true;
    media.setAttribute('playsinline', '');
    media.src = href;
  } else if (file.mediaType === 'image') {
    media = el('img');
    media.alt = entry.id + ' result ' + (entry.files.indexOf(file) + 1);
    media.src = href;
  } else {
    media = el('a', 'lb-file', 'Open the file');
    media.href = href;
    media.target = '_blank';
    media.rel = 'noopener';
    return media;
  }
  media.addEventListener('error', function () {
    var reason = file.remote ? 'could not load the link' : undefined;
    if (media.parentNode) media.parentNode.replaceChild(stateBox(file, reason), media);
  });
  return media;
}

function zoomTo(level) {
  var img = lightbox.parts.stage.querySelector('img');
  if (!img || !img.naturalWidth) return;
  var stage = lightbox.parts.stage;
  if (level === 0) {
    stage.classList.remove('zoomed');
    img.style.width = '';
  } else {
    // Zoom from the size that fits the stage; the stage scrolls to pan, kept on the middle of the view.
    var fitted = Math.min(stage.clientWidth / img.naturalWidth, stage.clientHeight / img.naturalHeight) * img.naturalWidth;
    var centerX = (stage.scrollLeft + stage.clientWidth / 2) / Math.max(1, stage.scrollWidth);
    var centerY = (stage.scrollTop + stage.clientHeight / 2) / Math.max(1, stage.scrollHeight);
    stage.classList.add('zoomed');
    img.style.width = Math.round(fitted * ZOOMS[level]) + 'px';
    stage.scrollLeft = centerX * stage.scrollWidth - stage.clientWidth / 2;
    stage.scrollTop = centerY * stage.scrollHeight - stage.clientHeight / 2;
  }
  lightbox.zoom = level;
  lightbox.parts.zoom.textContent = level === 0 ? 'Zoom' : ZOOMS[level] + '×';
}

function fact(list, name, value) {
  if (value === undefined || value === null || value === '') return;
  list.appendChild(el('dt', '', name));
  list.appendChild(typeof value === 'object' ? value : el('dd', '', value));
}

function detailsOf(entry, fileIndex) {
  var box = document.createDocumentFragment();
  var title = el('h2', 'id', entry.id + ' ');
  title.id = 'lb-title';
  title.appendChild(el('span', 'badge ' + entry.status, entry.status));
  box.appendChild(title);
  if (entry.files.length > 1) box.appendChild(el('div', 'facts', 'result ' + (fileIndex + 1) + ' of ' + entry.files.length));
  if (typeof reviewDetailsHook === 'function') reviewDetailsHook(box, entry, fileIndex);
  // A job without results shows its reason on the stage already.
  if (entry.status !== 'done' && fileIndex >= 0) box.appendChild(reasonOf(entry));
  if (entry.prompt !== undefined) {
    box.appendChild(el('div', 'prompt', entry.prompt));
    var copy = el('button', 'copy', 'Copy prompt');
    copy.type = 'button';
    copy.addEventListener('click', function () { copyText(entry.prompt, copy); });
    box.appendChild(copy);
  }
  var list = el('dl', 'lb-facts');
  fact(list, 'model', entry.model + ' (' + entry.kind + ')');
  fact(list, 'credits', String(entry.credits));
  fact(list, 'attempts', String(entry.attempts));
  fact(list, 'service job', entry.serviceJobId);
  fact(list, 'machine', entry.machine);
  var file = fileIndex >= 0 ? entry.files[fileIndex] : undefined;
  if (file) {
    var open = el('dd');
    if (isExpired(file)) open.textContent = 'expired ' + formatTime(file.expiresAt);
    else {
      var link = el('a', '', file.remote ? 'service link' : filePath(file.href));
      link.href = safeHref(file.href);
      link.target = '_blank';
      link.rel = 'noopener';
      open.appendChild(link);
      if (file.bytes !== undefined) open.appendChild(document.createTextNode(' · ' + Math.max(1, Math.round(file.bytes / 1024)) + ' KB'));
    }
    fact(list, 'file', open);
    if (file.remote && file.expiresAt && !isExpired(file)) fact(list, 'link until', formatTime(file.expiresAt));
  }
  box.appendChild(list);
  var axes = data.axes.filter(function (axis) { return axis in entry.matrix; });
  if (axes.length > 0) {
    box.appendChild(el('h3', '', 'Matrix'));
    var matrix = el('dl', 'lb-facts lb-matrix');
    axes.forEach(function (axis) { fact(matrix, axis, labelOf(axis, valueKey(entry.matrix[axis]))); });
    box.appendChild(matrix);
  }
  var names = Object.keys(entry.params);
  if (names.length > 0) {
    box.appendChild(el('h3', '', 'Params'));
    var params = el('dl', 'lb-facts lb-params');
    names.forEach(function (name) { fact(params, name, paramText(entry.params[name])); });
    box.appendChild(params);
  }
  if (entry.earlierAttempts && entry.earlierAttempts.length > 0) {
    box.appendChild(el('h3', '', 'Earlier attempts'));
    var attempts = el('ol', 'lb-attempts');
    entry.earlierAttempts.forEach(function (attempt) {
      var why = [attempt.failureKind, attempt.error].filter(Boolean).join(': ');
      attempts.appendChild(el('li', '', 'attempt ' + attempt.attempt + ': ' + attempt.outcome + (why ? ' — ' + why : '')));
    });
    box.appendChild(attempts);
  }
  return box;
}

// Copies a prompt or a command; the button says it did, then reads as before.
function copyText(text, button) {
  var label = button.getAttribute('data-label') || button.textContent;
  button.setAttribute('data-label', label);
  var copied = function () {
    button.textContent = 'Copied';
    setTimeout(function () { button.textContent = label; }, 1500);
  };
  // file:// pages may be refused the clipboard API: a selected text area and the copy command work there.
  var fallback = function () {
    var area = el('textarea', 'offscreen');
    area.value = text;
    area.setAttribute('readonly', '');
    // Inside the open dialog when there is one: a modal dialog keeps the selection to itself.
    (lightbox && lightbox.parts.dialog.open ? lightbox.parts.dialog : document.body).appendChild(area);
    area.select();
    var ok = false;
    try { ok = document.execCommand('copy'); } catch (error) { ok = false; }
    area.remove();
    button.focus();
    if (ok) copied(); else button.textContent = 'Copy failed: select the text';
  };
  if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(text).then(copied, fallback);
  else fallback();
}

function onClose() {
  var media = lightbox.parts.stage.querySelector('video');
  if (media) { media.pause(); media.removeAttribute('src'); media.load(); }
  lightbox.parts.stage.textContent = '';
  hashExtra = null;
  writeHash();
  var item = lightbox.items[lightbox.position];
  // Its card may be far from where the page was scrolled: made again if it was let go.
  var cardNode = item && cardOf(item.index);
  if (!cardNode) return;
  var target = cardNode.querySelector('.open[data-file="' + item.file + '"]') || focusTargetOf(cardNode);
  if (target) { target.focus({ preventScroll: true }); target.scrollIntoView({ block: 'nearest' }); }
}

function onOpenClick(event) {
  var target = event.target.closest && event.target.closest('.open');
  if (!target || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
  var cardNode = target.closest('[data-index]');
  if (!cardNode) return;
  event.preventDefault();
  openLightbox(Number(cardNode.getAttribute('data-index')), target.hasAttribute('data-file') ? Number(target.getAttribute('data-file')) : -1);
}

// Neighbours by the view's order, not by the cards in the DOM: only those near the view are.
function galleryNeighbour(cardNode, key) {
  var shown = galleryWindow.shown;
  if (key === 'Home') return cardOf(shown[0]);
  if (key === 'End') return cardOf(shown[shown.length - 1]);
  var columns = getComputedStyle(byId('gallery')).gridTemplateColumns.split(' ').length;
  var steps = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -columns, ArrowDown: columns };
  var position = galleryWindow.positions.get(Number(cardNode.getAttribute('data-index'))) + steps[key];
  return position >= 0 && position < shown.length ? cardOf(shown[position]) : undefined;
}
function gridNeighbour(cardNode, key) {
  var order = gridWindow.order;
  if (key === 'Home') return cardOf(order[0]);
  if (key === 'End') return cardOf(order[order.length - 1]);
  var at = gridWindow.at.get(Number(cardNode.getAttribute('data-index')));
  var forward = key === 'ArrowRight' || key === 'ArrowDown' ? 1 : -1;
  if (key === 'ArrowLeft' || key === 'ArrowRight') {
    var next = order[at.order + forward];
    return next === undefined ? undefined : cardOf(next);
  }
  // Up and down go on into the grid above or below (a third axis' next value), by the same column.
  var col = cardNode.closest('td').getAttribute('data-col');
  var rows = gridWindow.rows;
  for (var row = at.row + forward; row >= 0 && row < rows.length; row += forward) {
    var found = rows[row].byCol.get(col);
    if (found && found.length > 0) return cardOf(found[0]);
  }
  return undefined;
}
function onArrowKey(event) {
  var target = event.target.closest && event.target.closest('.open');
  if (!target || event.altKey || event.ctrlKey || event.metaKey) return;
  if ((event.key === 'Enter' || event.key === ' ') && !target.hasAttribute('href')) {
    event.preventDefault();
    target.click();
    return;
  }
  if (['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End'].indexOf(event.key) < 0) return;
  var cardNode = target.closest('.card');
  // Left and right go through a card's results first.
  var own = Array.prototype.slice.call(cardNode.querySelectorAll('.open'));
  var at = own.indexOf(target) + (event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0);
  var next;
  if (at !== own.indexOf(target) && own[at]) next = own[at];
  else {
    var neighbour = state.view === 'grid' ? gridNeighbour(cardNode, event.key) : galleryNeighbour(cardNode, event.key);
    if (!neighbour) return;
    var targets = neighbour.querySelectorAll('.open');
    next = event.key === 'ArrowLeft' ? targets[targets.length - 1] : targets[0];
  }
  if (!next) return;
  event.preventDefault();
  next.focus({ preventScroll: true });
  next.scrollIntoView({ block: 'nearest' });
}

function setupLightbox(params) {
  ['gallery', 'grid'].forEach(function (id) {
    byId(id).addEventListener('click', onOpenClick);
    byId(id).addEventListener('keydown', onArrowKey);
  });
  var wanted = params.get('open');
  if (wanted === null) return;
  for (var index = 0; index < entries.length; index++) {
    if (entries[index].id !== wanted) continue;
    var file = Number(params.get('file') || '1') - 1;
    openLightbox(index, file >= 0 && file < entries[index].files.length ? file : entries[index].files.length > 0 ? 0 : -1);
    return;
  }
}
`;
