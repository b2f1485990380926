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
  reviewMessage(list.length + ' decision(s) exported to ' + link.download + '; re-generate the rejected jobs with: runner apply MANIFEST --run ' + data.runId + ' --replace-from ' + link.download);
}
function importDecisions(text) {
  var parsed;
  try { parsed = JSON.parse(text); } catch (error) { return reviewMessage('Not imported: the file is not JSON.'); }
  if (!parsed || parsed.kind !== DECISIONS_KIND) return reviewMessage('Not imported: not a review decisions file.');
  if (parsed.schemaVersion !== 1) return reviewMessage('Not imported: schemaVersion ' + parsed.schemaVersion + '; this page reads 1.');
  if (parsed.runId !== data.runId || parsed.pipeline !== data.pipeline) return reviewMessage('Not imported: the decisions are of ' + parsed.pipeline + ' run ' + parsed.runId + ', this page shows ' + data.pipeline + ' run ' + data.runId + '.');
  var taken = 0;
  var stale = 0;
  (Array.isArray(parsed.decisions) ? parsed.decisions : []).forEach(function (item) {
    var index = reviewIndex.get(item && item.jobId);
    if (index === undefined || (item.decision !== 'approved' && item.decision !== 'rejected')) return;
    var entry = entries[index];
    if (item.attempt !== entry.attempt || item.payloadHash !== entry.payloadHash) { stale++; return; }
    var record = { jobId: entry.id, decision: item.decision, attempt: entry.attempt, payloadHash: entry.payloadHash, decidedAt: item.decidedAt || new Date().toISOString() };
    if (item.file) record.file = item.file;
    if (item.note) record.note = String(item.note).slice(0, 2000);
    decisionStore[decisionKey(entry.id, item.file)] = record;
    taken++;
  });
  saveDecisions();
  Array.prototype.forEach.call(document.querySelectorAll('.card[data-index]'), function (node) {
    renderCardReview(node, Number(node.getAttribute('data-index')));
  });
  refresh();
  reviewMessage(taken + ' decision(s) imported' + (stale > 0 ? '; ' + stale + ' made on an earlier attempt left out' : '') + '.');
}
function reviewMessage(text) { byId('review-message').textContent = text; }
`;
