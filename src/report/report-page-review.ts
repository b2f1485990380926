/**
 * The report page's review (#19.3), plain ES2017 in the page's one function scope (its `entries`,
 * `state`, `el`, `byId`, `refresh`, `lightbox`...), hooked in by `setup()`, `card()`, `missedFilter()`
 * and the lightbox's details:
 *
 * - Approve or reject, with a note, each job and each of its results: buttons on every card (gallery
 *   and grid) and in the lightbox, where A, R and N approve, reject and write a note for the result
 *   shown. A decision belongs to the job's attempt it was made on (and its payload hash): when the job
 *   is re-generated, the new attempt starts undecided.
 * - Kept in the browser while reviewing (localStorage, keyed by pipeline and run), so a reload, or the
 *   same run's report opened from elsewhere, keeps them; a tally ("2 rejected, 5 approved, 9 to review") and a filter by decision.
 * - Exported as a decisions file and imported back from one (`report-page-review-file.ts`); that file
 *   is what `runner apply FILE --run ID --replace-from decisions.json` re-generates from.
 * - Results a later attempt replaced show beside the new ones: "rejected → replaced by attempt N" with
 *   the reviewer's note.
 */
export const REPORT_PAGE_REVIEW_SCRIPT = String.raw`
// Keyed by the run, not the page's path (#33.3): the same run's report in another folder, a CI
// artifact or another machine's copy shows the decisions made on it (each stays tied to the attempt
// and payload hash it was made on). The first key (with the path) is read once, when the run has none.
var REVIEW_KEY = 'runner-review:v2:' + JSON.stringify([data.pipeline, data.runId]);
var REVIEW_KEY_BY_PATH = 'runner-review:v1:' + data.pipeline + ':' + data.runId + ':' + location.pathname;
// jobId + NUL + file (0: the whole job) → { jobId, file?, decision, note?, attempt, payloadHash, decidedAt }
var decisionStore = {};
var reviewIndex = new Map();
var reviewFilterSelect = null;
// Whether anything is decided: an undecided page (the common first load) skips every lookup.
var reviewAny = false;

function decisionKey(jobId, file) { return jobId + '\u0000' + (file || 0); }
// Jobs apply can run again: done (results saved or not) or failed.
function canReview(entry) {
  return entry.attempt !== undefined && entry.payloadHash !== undefined && ['done', 'downloading', 'failed'].indexOf(entry.status) >= 0;
}
function loadDecisions() {
  try {
    var stored = JSON.parse(localStorage.getItem(REVIEW_KEY) || localStorage.getItem(REVIEW_KEY_BY_PATH) || '{}');
    if (stored && typeof stored === 'object') decisionStore = stored;
    reviewAny = Object.keys(decisionStore).length > 0;
  } catch (error) { decisionStore = {}; }
}
function saveDecisions() {
  reviewAny = Object.keys(decisionStore).length > 0;
  try { localStorage.setItem(REVIEW_KEY, JSON.stringify(decisionStore)); } catch (error) { /* private mode: kept for this visit */ }
}
// A decision counts only for the attempt it was made on: a re-generated job starts undecided.
function decisionOf(entry, file) {
  var found = decisionStore[decisionKey(entry.id, file)];
  if (!found || found.attempt !== entry.attempt || found.payloadHash !== entry.payloadHash) return undefined;
  return found;
}
function setDecision(index, file, decision, note) {
  var entry = entries[index];
  if (!canReview(entry)) return;
  var key = decisionKey(entry.id, file);
  var current = decisionOf(entry, file) || {};
  var next = { jobId: entry.id, decision: decision === undefined ? current.decision || '' : decision, attempt: entry.attempt, payloadHash: entry.payloadHash, decidedAt: new Date().toISOString() };
  if (file) next.file = file;
  var text = note === undefined ? current.note : note;
  if (text) next.note = text.slice(0, 2000);
  if (!next.decision && !next.note) delete decisionStore[key]; else decisionStore[key] = next;
  saveDecisions();
  updateReviewViews(index);
}
function toggleDecision(index, file, decision) {
  var current = decisionOf(entries[index], file);
  setDecision(index, file, current && current.decision === decision ? '' : decision);
}
// A job's verdict: rejected when it or any of its results is; approved when it is, or all its results are.
function verdictOf(index) {
  var entry = entries[index];
  if (!canReview(entry)) return 'none';
  if (!reviewAny) return 'to-review';
  var own = decisionOf(entry, 0);
  if (own && own.decision === 'rejected') return 'rejected';
  var allApproved = entry.files.length > 0;
  for (var at = 0; at < entry.files.length; at++) {
    var item = decisionOf(entry, at + 1);
    if (item && item.decision === 'rejected') return 'rejected';
    if (!item || item.decision !== 'approved') allApproved = false;
  }
  return (own && own.decision === 'approved') || allApproved ? 'approved' : 'to-review';
}
function reviewFilterMiss(index) {
  return state.review !== undefined && state.review !== '' && verdictOf(index) !== state.review;
}

// One bar per job or result: the buttons only (clicks are delegated: 5,000 cards, no listener each).
function decisionButtons(index, file, label) {
  var current = decisionOf(entries[index], file);
  var bar = el('div', 'review-bar');
  bar.setAttribute('data-review-file', String(file || 0));
  if (label) bar.appendChild(el('span', 'review-label', label));
  [['approved', '✓ Approve'], ['rejected', '✗ Reject']].forEach(function (kind) {
    var button = el('button', 'review-' + kind[0], kind[1]);
    button.type = 'button';
    button.setAttribute('data-decision', kind[0]);
    button.setAttribute('aria-pressed', String(!!current && current.decision === kind[0]));
    bar.appendChild(button);
  });
  var note = el('button', 'review-note-toggle', current && current.note ? 'Note ✎' : 'Note');
  note.type = 'button';
  bar.appendChild(note);
  return bar;
}
// A note field is made when there is a note, when asked for, and always in the lightbox.
function noteField(index, file) {
  var current = decisionOf(entries[index], file);
  var area = el('textarea', 'review-note');
  area.setAttribute('data-review-file', String(file || 0));
  area.setAttribute('aria-label', 'Note on ' + entries[index].id + (file ? ' result ' + file : ''));
  area.maxLength = 2000;
  area.rows = 2;
  area.placeholder = 'Why? (kept with the decision, shown beside the new result)';
  area.value = current && current.note ? current.note : '';
  return area;
}
function reviewBox(index, inLightbox, shownFile) {
  var entry = entries[index];
  var box = el('div', 'review');
  var many = entry.files.length > 1;
  var add = function (file, label) {
    box.appendChild(decisionButtons(index, file, label));
    var current = decisionOf(entry, file);
    if (inLightbox || (current && current.note)) box.appendChild(noteField(index, file));
  };
  add(0, many || inLightbox ? 'job' : '');
  entry.files.forEach(function (file, at) {
    if (many && !(inLightbox && shownFile !== at)) add(at + 1, 'result ' + (at + 1));
  });
  return box;
}
function reviewIndexOf(node) {
  var cardNode = node.closest('[data-index]');
  if (cardNode) return Number(cardNode.getAttribute('data-index'));
  var item = lightbox && lightbox.parts.dialog.contains(node) ? lightbox.items[lightbox.position] : undefined;
  return item ? item.index : -1;
}
function onReviewClick(event) {
  var button = event.target.closest && event.target.closest('.review button');
  if (!button) return;
  var index = reviewIndexOf(button);
  if (index < 0) return;
  var file = Number(button.parentNode.getAttribute('data-review-file'));
  var decision = button.getAttribute('data-decision');
  if (decision) { toggleDecision(index, file, decision); return; }
  var box = button.closest('.review');
  var area = box.querySelector('textarea[data-review-file="' + file + '"]');
  if (!area) {
    area = noteField(index, file);
    box.insertBefore(area, button.parentNode.nextSibling);
  } else if (!area.value) area.hidden = !area.hidden;
  if (!area.hidden) area.focus();
}
function onReviewChange(event) {
  var area = event.target;
  if (!area || area.tagName !== 'TEXTAREA' || !area.classList.contains('review-note')) return;
  var index = reviewIndexOf(area);
  if (index >= 0) setDecision(index, Number(area.getAttribute('data-review-file')), undefined, area.value);
}
// Results a later attempt replaced, beside the new ones (the files are kept in .superseded/attempt-N/).
function replacedBox(entry, large) {
  var box = el('div', 'replaced');
  entry.replaced.forEach(function (old) {
    var item = el('div', 'replaced-attempt' + (old.rejected ? ' rejected' : ''));
    var caption = 'attempt ' + old.attempt + (old.rejected ? ' · rejected → replaced by attempt ' : ' · replaced by attempt ') + old.replacedBy;
    item.appendChild(el('div', 'replaced-caption', caption));
    var row = el('div', 'replaced-files');
    old.files.forEach(function (file, at) {
      var link = el('a', 'replaced-file');
      link.href = safeHref(file.href);
      link.target = '_blank';
      link.rel = 'noopener';
      if (file.mediaType === 'image') {
        var img = el('img');
        img.loading = large ? 'eager' : 'lazy';
        img.alt = entry.id + ' attempt ' + old.attempt + ' result ' + (at + 1);
        img.src = link.href;
        img.addEventListener('error', function () { link.textContent = 'file not found: ' + filePath(file.href); });
        link.appendChild(img);
      } else link.textContent = 'result ' + (at + 1) + ' (' + file.mediaType + ')';
      row.appendChild(link);
    });
    item.appendChild(row);
    if (old.note) item.appendChild(el('div', 'replaced-note', old.note));
    box.appendChild(item);
  });
  return box;
}

// Hook of card(): the decision buttons and the replaced attempts under a card's body (cards are made
// only near the view: report-page-window.ts).
function reviewCardHook(node, body, index) {
  var entry = entries[index];
  node.setAttribute('data-verdict', verdictOf(index));
  if (entry.replaced && entry.replaced.length > 0) body.appendChild(replacedBox(entry, false));
  if (canReview(entry)) body.appendChild(reviewBox(index, false));
}
// Hook of tile(): a grid cell is the image alone, to compare at a glance. Its verdict and replaced
// attempts are marks drawn by CSS from its attributes; its ✓/✗ are made when the pointer or the focus
// first comes to it (tileReviewOn), and A/R/N decide on the focused tile as in the lightbox. Buttons
// under every tile made a grid of 64 px images three times as tall, and twice the nodes to lay out.
function reviewTileHook(node, index) {
  var entry = entries[index];
  node.setAttribute('data-verdict', verdictOf(index));
  if (entry.replaced && entry.replaced.length > 0) {
    var last = entry.replaced[entry.replaced.length - 1];
    node.setAttribute('data-replaced', last.rejected ? 'rejected' : 'replaced');
    node.title += ' · attempt ' + last.attempt + (last.rejected ? ' rejected, ' : ' ') + 'replaced by attempt ' + last.replacedBy + ' (both in the lightbox)';
  }
  if (canReview(entry)) node.title += ' · A approve · R reject · N note';
}
// A tile's ✓ and ✗ (the job's decision; a result's own, and notes, in the lightbox).
function tileReviewBar(index) {
  var current = decisionOf(entries[index], 0);
  var box = el('div', 'review tile-review');
  var bar = el('div', 'review-bar');
  bar.setAttribute('data-review-file', '0');
  [['approved', '✓', 'Approve '], ['rejected', '✗', 'Reject ']].forEach(function (kind) {
    var button = el('button', 'review-' + kind[0], kind[1]);
    button.type = 'button';
    button.setAttribute('data-decision', kind[0]);
    button.setAttribute('aria-label', kind[2] + entries[index].id);
    button.setAttribute('aria-pressed', String(!!current && current.decision === kind[0]));
    bar.appendChild(button);
  });
  box.appendChild(bar);
  return box;
}
function tileReviewOn(event) {
  var node = event.target.closest && event.target.closest('.tile[data-index]');
  if (!node || node.querySelector('.tile-review')) return;
  var index = Number(node.getAttribute('data-index'));
  if (canReview(entries[index])) node.appendChild(tileReviewBar(index));
}
// Hook of the lightbox's details: decisions on the job and the result shown, and the replaced attempts.
function reviewDetailsHook(box, entry, fileIndex) {
  var index = reviewIndex.get(entry.id);
  if (canReview(entry)) {
    var section = el('section', 'lb-review');
    section.appendChild(el('h3', '', 'Review (A approve · R reject · N note)'));
    section.appendChild(reviewBox(index, true, fileIndex));
    box.appendChild(section);
  }
  if (entry.replaced && entry.replaced.length > 0) {
    box.appendChild(el('h3', '', 'Replaced attempts'));
    box.appendChild(replacedBox(entry, true));
  }
}

function renderCardReview(node, index) {
  node.setAttribute('data-verdict', verdictOf(index));
  var old = node.querySelector('.review');
  if (old) old.parentNode.replaceChild(old.classList.contains('tile-review') ? tileReviewBar(index) : reviewBox(index, false), old);
}
function updateReviewViews(index) {
  Array.prototype.forEach.call(document.querySelectorAll('.card[data-index="' + index + '"]'), function (node) {
    renderCardReview(node, index);
  });
  if (lightbox && lightbox.parts.dialog.open) {
    var item = lightbox.items[lightbox.position];
    if (item && item.index === index) {
      var section = lightbox.parts.details.querySelector('.lb-review .review');
      if (section) section.parentNode.replaceChild(reviewBox(index, true, item.file), section);
    }
  }
  updateTally();
}

function tallyCounts() {
  var counts = { rejected: 0, approved: 0, 'to-review': 0 };
  for (var index = 0; index < entries.length; index++) {
    var verdict = verdictOf(index);
    if (verdict !== 'none') counts[verdict]++;
  }
  return counts;
}
function updateTally() {
  var counts = tallyCounts();
  byId('review-tally').textContent = counts.rejected + ' rejected, ' + counts.approved + ' approved, ' + counts['to-review'] + ' to review';
  // The filter's counts follow the other filters, as theirs do.
  var shown = { '': 0, rejected: 0, approved: 0, 'to-review': 0 };
  for (var index = 0; index < entries.length; index++) {
    var missed = missedFilter(index);
    if (missed !== true && missed !== 'review') continue;
    shown['']++;
    var verdict = verdictOf(index);
    if (verdict !== 'none') shown[verdict]++;
  }
  Array.prototype.forEach.call(reviewFilterSelect.options, function (node) {
    node.textContent = (node.value === '' ? 'all' : node.value.replace('-', ' ')) + ' (' + shown[node.value] + ')';
  });
  // A job leaving the filtered decision hides its card at the next refresh, not under the pointer.
}

// A approves, R rejects, N writes a note: in the lightbox, the result shown (or the job when it has
// one result); on a focused card or tile, the result focused (or the job), N in the lightbox.
function onReviewKey(event) {
  var tag = event.target && event.target.tagName;
  if (tag === 'TEXTAREA' || tag === 'INPUT' || tag === 'SELECT' || event.altKey || event.ctrlKey || event.metaKey) return;
  var key = event.key.toLowerCase();
  if (key !== 'a' && key !== 'r' && key !== 'n') return;
  var item = lightbox && lightbox.parts.dialog.open ? lightbox.items[lightbox.position] : focusedItem(event.target);
  if (!item || !canReview(entries[item.index])) return;
  var file = entries[item.index].files.length > 1 && item.file >= 0 ? item.file + 1 : 0;
  event.preventDefault();
  if (key === 'a') toggleDecision(item.index, file, 'approved');
  else if (key === 'r') toggleDecision(item.index, file, 'rejected');
  else {
    if (!lightbox || !lightbox.parts.dialog.open) openLightbox(item.index, item.file);
    var area = lightbox.parts.details.querySelector('.lb-review textarea[data-review-file="' + file + '"]');
    if (area) { area.hidden = false; area.focus(); }
  }
}
// The job and result of the card or tile holding the focus, outside the lightbox.
function focusedItem(target) {
  var node = target && target.closest ? target.closest('#gallery .card[data-index], #grid .card[data-index]') : null;
  if (!node) return undefined;
  var open = target.closest('[data-file]');
  return { index: Number(node.getAttribute('data-index')), file: open ? Number(open.getAttribute('data-file')) : -1 };
}

function setupReview() {
  state.review = '';
  entries.forEach(function (entry, index) { reviewIndex.set(entry.id, index); });
  loadDecisions();
  var controls = byId('controls');
  var label = el('label', '', 'decision ');
  reviewFilterSelect = el('select');
  reviewFilterSelect.id = 'filter-review';
  ['', 'rejected', 'approved', 'to-review'].forEach(function (value) { option(reviewFilterSelect, value, value || 'all'); });
  reviewFilterSelect.value = state.review || '';
  reviewFilterSelect.addEventListener('change', function () { state.review = reviewFilterSelect.value; refresh(); });
  label.appendChild(reviewFilterSelect);
  var bar = el('span', 'review-tools');
  bar.appendChild(el('span', 'review-tally', ''));
  bar.lastChild.id = 'review-tally';
  bar.lastChild.setAttribute('role', 'status');
  var exportButton = el('button', '', 'Export decisions');
  exportButton.type = 'button';
  exportButton.id = 'export-decisions';
  exportButton.addEventListener('click', exportDecisions);
  var input = el('input');
  input.type = 'file';
  input.accept = 'application/json,.json';
  input.id = 'import-decisions-file';
  input.hidden = true;
  input.addEventListener('change', function () {
    var file = input.files && input.files[0];
    if (!file) return;
    var reader = new FileReader();
    reader.onload = function () { importDecisions(String(reader.result), file.name); input.value = ''; };
    reader.readAsText(file);
  });
  var importButton = el('button', '', 'Import…');
  importButton.type = 'button';
  importButton.id = 'import-decisions';
  importButton.addEventListener('click', function () { input.click(); });
  bar.appendChild(exportButton);
  bar.appendChild(importButton);
  bar.appendChild(input);
  var message = el('span', 'review-message');
  message.id = 'review-message';
  message.setAttribute('aria-live', 'polite');
  bar.appendChild(message);
  controls.insertBefore(label, byId('shown'));
  controls.appendChild(bar);
  var next = el('div', 'next-step');
  next.id = 'next-step';
  next.hidden = true;
  next.setAttribute('aria-live', 'polite');
  controls.parentNode.insertBefore(next, controls.nextSibling);
  document.addEventListener('keydown', onReviewKey);
  byId('grid').addEventListener('pointerover', tileReviewOn);
  byId('grid').addEventListener('focusin', tileReviewOn);
  document.addEventListener('click', onReviewClick);
  document.addEventListener('change', onReviewChange);
}
function readReviewHash(params) {
  var wanted = params.get('review') || '';
  state.review = ['rejected', 'approved', 'to-review'].indexOf(wanted) >= 0 ? wanted : '';
  if (reviewFilterSelect) reviewFilterSelect.value = state.review;
}
`;
