import {
  DECISIONS_KIND,
  DECISIONS_VERSION,
  MAX_NOTE_LENGTH,
  type DecisionsFile,
  type ReviewDecision,
} from '../../review/decisions.js';
import { byId, el } from './dom.js';
import { data, entries } from './model.js';
import { commandNode } from './reason.js';
import {
  canReview,
  decisionKey,
  decisionOf,
  decisionStore,
  reviewIndex,
  saveDecisions,
  type StoredDecision,
} from './review-store.js';
import { renderCardReview } from './review-view.js';
import { refresh } from './view.js';

/**
 * The review's decisions file (#19.3): the export (JSON, `kind: runner-review-decisions`,
 * `schemaVersion: 1`, see schemas/review-decisions.schema.json, downloaded through a Blob link), the
 * `DecisionsFile` that `runner apply FILE --run ID --replace-from decisions.json` reads
 * (src/review/read-decisions.ts), and the import of one, which leaves out decisions made on an attempt
 * since replaced.
 */

export function exportDecisions(): void {
  const list: ReviewDecision[] = [];
  entries.forEach((entry) => {
    if (!canReview(entry)) return;
    [0].concat(entry.files.map((_file, at) => at + 1)).forEach((file) => {
      const decision = decisionOf(entry, file);
      if (!decision || !decision.decision) return;
      const item: ReviewDecision = {
        jobId: entry.id,
        decision: decision.decision,
        attempt: decision.attempt,
        payloadHash: decision.payloadHash,
        // Absent (older stores): dropped by JSON.stringify, as before.
        decidedAt: decision.decidedAt as string,
      };
      if (file) item.file = file;
      if (decision.note) item.note = decision.note;
      list.push(item);
    });
  });
  const file: DecisionsFile = {
    kind: DECISIONS_KIND,
    schemaVersion: DECISIONS_VERSION,
    pipeline: data.pipeline,
    runId: data.runId,
    exportedAt: new Date().toISOString(),
    report: { generatedAt: data.generatedAt, manifestFile: data.manifestFile },
    decisions: list,
  };
  const blob = new Blob([JSON.stringify(file, null, 2) + '\n'], { type: 'application/json' });
  const link = el('a');
  link.href = URL.createObjectURL(blob);
  link.download = (data.pipeline + '-' + data.runId + '-decisions.json').replace(/[^A-Za-z0-9._-]/g, '_');
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
  reviewMessage(list.length + ' decision(s) exported to ' + link.download + '.');
  showNextStep(link.download, list.filter((item) => item.decision === 'rejected').length);
}

/**
 * What to run after exporting (or importing) a decisions file (#33.3): plan, then apply
 * --replace-from it, with this run's flags (its state and output) when the runner gave the page them.
 */
function showNextStep(fileName: string, rejected: number): void {
  const box = byId('next-step');
  box.textContent = '';
  box.hidden = false;
  if (rejected === 0) {
    box.appendChild(
      el('span', '', 'No job is rejected: apply --replace-from this file would re-generate nothing.'),
    );
    return;
  }
  const base = data.commands || {
    plan: ['runner', 'plan', data.manifestFile, '--run', data.runId].map(shellQuote).join(' '),
    apply: ['runner', 'apply', data.manifestFile, '--run', data.runId].map(shellQuote).join(' '),
  };
  const tail = ' --replace-from ' + shellQuote(fileName);
  box.appendChild(
    el(
      'span',
      '',
      'Next, with ' +
        fileName +
        ' where your browser saved it: see what re-generating the ' +
        rejected +
        ' rejected job' +
        (rejected === 1 ? '' : 's') +
        ' costs, then re-generate ' +
        (rejected === 1 ? 'it' : 'them') +
        ' (paid):',
    ),
  );
  box.appendChild(commandNode(base.plan + tail));
  box.appendChild(commandNode(base.apply + tail));
}

/** A word as a POSIX shell reads it back unchanged (as the runner quotes its own commands). */
function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : "'" + word.replace(/'/g, "'\\''") + "'";
}

/** A decision of an imported file, as far as the page reads it before checking it. */
interface ImportedDecision {
  jobId?: unknown;
  file?: number;
  decision?: unknown;
  note?: string;
  attempt?: unknown;
  payloadHash?: unknown;
  decidedAt?: string;
}

export function importDecisions(text: string, fileName?: string): void {
  let parsed: Partial<Record<keyof DecisionsFile, unknown>> | null;
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    return reviewMessage('Not imported: the file is not JSON.');
  }
  if (!parsed || parsed.kind !== DECISIONS_KIND)
    return reviewMessage('Not imported: not a review decisions file.');
  if (parsed.schemaVersion !== DECISIONS_VERSION)
    return reviewMessage(
      'Not imported: schemaVersion ' +
        String(parsed.schemaVersion) +
        '; this page reads ' +
        DECISIONS_VERSION +
        '.',
    );
  if (parsed.runId !== data.runId || parsed.pipeline !== data.pipeline)
    return reviewMessage(
      'Not imported: the decisions are of ' +
        String(parsed.pipeline) +
        ' run ' +
        String(parsed.runId) +
        ', this page shows ' +
        data.pipeline +
        ' run ' +
        data.runId +
        '.',
    );
  const taken = { approved: 0, rejected: 0 };
  // Why each decision left out was (#33.3): the jobs it names, by reason.
  const skipped: Record<'stale' | 'changed' | 'unknown' | 'unreviewable' | 'invalid', string[]> = {
    stale: [],
    changed: [],
    unknown: [],
    unreviewable: [],
    invalid: [],
  };
  const decisions = (Array.isArray(parsed.decisions) ? parsed.decisions : []) as (ImportedDecision | null)[];
  decisions.forEach((item, at) => {
    if (
      !item ||
      typeof item.jobId !== 'string' ||
      (item.decision !== 'approved' && item.decision !== 'rejected')
    ) {
      skipped.invalid.push('#' + (at + 1));
      return;
    }
    const index = reviewIndex.get(item.jobId);
    if (index === undefined) {
      skipped.unknown.push(item.jobId);
      return;
    }
    const entry = entries[index]!;
    if (!canReview(entry)) {
      skipped.unreviewable.push(item.jobId + ' (' + entry.status + ')');
      return;
    }
    if (item.attempt !== entry.attempt) {
      skipped.stale.push(item.jobId + ' (attempt ' + String(item.attempt) + ', now ' + entry.attempt + ')');
      return;
    }
    if (item.payloadHash !== entry.payloadHash) {
      skipped.changed.push(item.jobId);
      return;
    }
    const record: StoredDecision = {
      jobId: entry.id,
      decision: item.decision,
      attempt: entry.attempt!,
      payloadHash: entry.payloadHash!,
      decidedAt: item.decidedAt || new Date().toISOString(),
    };
    if (item.file) record.file = item.file;
    if (item.note) record.note = String(item.note).slice(0, MAX_NOTE_LENGTH);
    decisionStore[decisionKey(entry.id, item.file)] = record;
    taken[item.decision]++;
  });
  saveDecisions();
  document.querySelectorAll('.card[data-index]').forEach((node) => {
    renderCardReview(node, Number(node.getAttribute('data-index')));
  });
  refresh();
  const reasons = (
    [
      [skipped.stale, 'made on an earlier attempt than the job’s latest'],
      [skipped.changed, 'made on another state’s job (its payload differs)'],
      [skipped.unknown, 'of jobs this report does not have'],
      [skipped.unreviewable, 'of jobs with nothing to review'],
      [skipped.invalid, 'not decisions (no job id, or neither approved nor rejected)'],
    ] as const
  )
    .filter(([jobs]) => jobs.length > 0)
    .map(([jobs, why]) => {
      const named =
        jobs.slice(0, 3).join(', ') + (jobs.length > 3 ? ' and ' + (jobs.length - 3) + ' more' : '');
      return jobs.length + ' ' + why + ': ' + named;
    });
  const total =
    skipped.stale.length +
    skipped.changed.length +
    skipped.unknown.length +
    skipped.unreviewable.length +
    skipped.invalid.length;
  reviewMessage(
    taken.approved +
      taken.rejected +
      ' decision(s) imported (' +
      taken.rejected +
      ' rejected, ' +
      taken.approved +
      ' approved)' +
      (total > 0 ? '; ' + total + ' skipped: ' + reasons.join('; ') : '') +
      '.',
  );
  if (fileName) showNextStep(fileName, taken.rejected);
}

function reviewMessage(text: string): void {
  byId('review-message').textContent = text;
}
