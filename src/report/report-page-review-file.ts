/**
 * The review's decisions file in the report page (#19.3), plain ES2017 in the page's one function scope
 * (after `report-page-review.ts`, whose `decisionStore`, `decisionOf` and `reviewIndex` it uses): the
 * export (JSON, `kind: runner-review-decisions`, `schemaVersion: 1`, see
 * schemas/review-decisions.schema.json, downloaded through a Blob link) and the import of one, which
 * leaves out decisions made on an attempt since replaced.
 */
export const REPORT_PAGE_REVIEW_FILE_SCRIPT = String.raw`
var DECISIONS_KIND = 'runner-review-decisions';
function exportDecisions() {
  var list = [];
  entries.forEach(function (entry) {
    if (!canReview(entry)) return;
    [0].concat(entry.files.map(function (file, at) { return at + 1; })).forEach(function (file) {
      var decision = decisionOf(entry, file);
      if (!decision || !decision.decision) return;
      var item = { jobId: entry.id, decision: decision.decision, attempt: decision.attempt, payloadHash: decision.payloadHash, decidedAt: decision.decidedAt };
      if (file) item.file = file;
      if (decision.note) item.note = decision.note;
      list.push(item);
    });
  });
  var document_ = {
    kind: DECISIONS_KIND,
    schemaVersion: 1,
    pipeline: data.pipeline,
    runId: data.runId,
    exportedAt: new Date().toISOString(),
    report: { generatedAt: data.generatedAt, manifestFile: data.manifestFile },
    decisions: list,
  };
  var blob = new Blob([JSON.stringify(document_, null, 2) + '\n'], { type: 'application/json' });
  var link = el('a');
  link.href = URL.createObjectURL(blob);
  link.download = (data.pipeline + '-' + data.runId + '-decisions.json').replace(/[^A-Za-z0-9._-]/g, '_');
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(function () { URL.revokeObjectURL(link.href); }, 10000);
  reviewMessage(list.length + ' decision(s) exported to ' + link.download + '.');
  showNextStep(link.download, list.filter(function (item) { return item.decision === 'rejected'; }).length);
}
// What to run after exporting (or importing) a decisions file (#33.3): plan, then apply
// --replace-from it, with this run's flags (its state and output) when the runner gave the page them.
function showNextStep(fileName, rejected) {
  var box = byId('next-step');
  box.textContent = '';
  box.hidden = false;
  if (rejected === 0) {
    box.appendChild(el('span', '', 'No job is rejected: apply --replace-from this file would re-generate nothing.'));
    return;
  }
  var base = data.commands || {
    plan: ['runner', 'plan', data.manifestFile, '--run', data.runId].map(shellQuote).join(' '),
    apply: ['runner', 'apply', data.manifestFile, '--run', data.runId].map(shellQuote).join(' '),
  };
  var tail = ' --replace-from ' + shellQuote(fileName);
  box.appendChild(el('span', '', 'Next, with ' + fileName + ' where your browser saved it: see what re-generating the ' +
    rejected + ' rejected job' + (rejected === 1 ? '' : 's') + ' costs, then re-generate ' + (rejected === 1 ? 'it' : 'them') + ' (paid):'));
  box.appendChild(commandNode(base.plan + tail));
  box.appendChild(commandNode(base.apply + tail));
}
// A word as a POSIX shell reads it back unchanged (as the runner quotes its own commands).
function shellQuote(word) {
  return /^[A-Za-z0-9_@%+=:,.\/-]+$/.test(word) ? word : "'" + word.replace(/'/g, "'\\''") + "'";
}
function importDecisions(text, fileName) {
  var parsed;
  try { parsed = JSON.parse(text); } catch (error) { return reviewMessage('Not imported: the file is not JSON.'); }
  if (!parsed || parsed.kind !== DECISIONS_KIND) return reviewMessage('Not imported: not a review decisions file.');
  if (parsed.schemaVersion !== 1) return reviewMessage('Not imported: schemaVersion ' + parsed.schemaVersion + '; this page reads 1.');
  if (parsed.runId !== data.runId || parsed.pipeline !== data.pipeline) return reviewMessage('Not imported: the decisions are of ' + parsed.pipeline + ' run ' + parsed.runId + ', this page shows ' + data.pipeline + ' run ' + data.runId + '.');
  var taken = { approved: 0, rejected: 0 };
  // Why each decision left out was (#33.3): the jobs it names, by reason.
  var skipped = { stale: [], changed: [], unknown: [], unreviewable: [], invalid: [] };
  (Array.isArray(parsed.decisions) ? parsed.decisions : []).forEach(function (item, at) {
    if (!item || typeof item.jobId !== 'string' || (item.decision !== 'approved' && item.decision !== 'rejected')) {
      skipped.invalid.push('#' + (at + 1));
      return;
    }
    var index = reviewIndex.get(item.jobId);
    if (index === undefined) { skipped.unknown.push(item.jobId); return; }
    var entry = entries[index];
    if (!canReview(entry)) { skipped.unreviewable.push(item.jobId + ' (' + entry.status + ')'); return; }
    if (item.attempt !== entry.attempt) { skipped.stale.push(item.jobId + ' (attempt ' + item.attempt + ', now ' + entry.attempt + ')'); return; }
    if (item.payloadHash !== entry.payloadHash) { skipped.changed.push(item.jobId); return; }
    var record = { jobId: entry.id, decision: item.decision, attempt: entry.attempt, payloadHash: entry.payloadHash, decidedAt: item.decidedAt || new Date().toISOString() };
    if (item.file) record.file = item.file;
    if (item.note) record.note = String(item.note).slice(0, 2000);
    decisionStore[decisionKey(entry.id, item.file)] = record;
    taken[item.decision]++;
  });
  saveDecisions();
  Array.prototype.forEach.call(document.querySelectorAll('.card[data-index]'), function (node) {
    renderCardReview(node, Number(node.getAttribute('data-index')));
  });
  refresh();
  var reasons = [
    [skipped.stale, 'made on an earlier attempt than the job’s latest'],
    [skipped.changed, 'made on another state’s job (its payload differs)'],
    [skipped.unknown, 'of jobs this report does not have'],
    [skipped.unreviewable, 'of jobs with nothing to review'],
    [skipped.invalid, 'not decisions (no job id, or neither approved nor rejected)'],
  ].filter(function (reason) { return reason[0].length > 0; }).map(function (reason) {
    var named = reason[0].slice(0, 3).join(', ') + (reason[0].length > 3 ? ' and ' + (reason[0].length - 3) + ' more' : '');
    return reason[0].length + ' ' + reason[1] + ': ' + named;
  });
  var total = skipped.stale.length + skipped.changed.length + skipped.unknown.length + skipped.unreviewable.length + skipped.invalid.length;
  reviewMessage((taken.approved + taken.rejected) + ' decision(s) imported (' + taken.rejected + ' rejected, ' + taken.approved + ' approved)' +
    (total > 0 ? '; ' + total + ' skipped: ' + reasons.join('; ') : '') + '.');
  if (fileName) showNextStep(fileName, taken.rejected);
}
function reviewMessage(text) { byId('review-message').textContent = text; }
`;
