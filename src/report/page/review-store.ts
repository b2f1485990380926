import { MAX_NOTE_LENGTH, type Decision, type ReviewDecision } from '../../review/decisions.js';
import type { PageEntry } from '../page-data.js';
import { data, entries, state } from './model.js';

/**
 * The review's decisions as the page keeps them (#19.3): in the browser while reviewing
 * (localStorage, keyed by pipeline and run), so a reload, or the same run's report opened from
 * elsewhere, keeps them. A decision belongs to the job's attempt it was made on (and its payload
 * hash): when the job is re-generated, the new attempt starts undecided.
 */

/** A decision as kept: a note may stand alone, with no decision yet (''). */
export interface StoredDecision extends Omit<ReviewDecision, 'decision'> {
  decision: Decision | '';
}

/** A job's verdict: 'none' for a job with nothing to review. */
export type Verdict = 'rejected' | 'approved' | 'to-review' | 'none';

// Keyed by the run, not the page's path (#33.3): the same run's report in another folder, a CI
// artifact or another machine's copy shows the decisions made on it (each stays tied to the attempt
// and payload hash it was made on). The first key (with the path) is read once, when the run has none.
const REVIEW_KEY = 'runner-review:v2:' + JSON.stringify([data.pipeline, data.runId]);
const REVIEW_KEY_BY_PATH = 'runner-review:v1:' + data.pipeline + ':' + data.runId + ':' + location.pathname;
/** jobId + NUL + file (0: the whole job) → its decision. */
export let decisionStore: Record<string, StoredDecision> = {};
/** Job id → entry index. */
export const reviewIndex = new Map<string, number>();
// Whether anything is decided: an undecided page (the common first load) skips every lookup.
let reviewAny = false;

export function decisionKey(jobId: string, file: number | undefined): string {
  return jobId + '\u0000' + (file || 0);
}

/** Jobs apply can run again: done (results saved or not) or failed. */
export function canReview(entry: PageEntry): boolean {
  return (
    entry.attempt !== undefined &&
    entry.payloadHash !== undefined &&
    ['done', 'downloading', 'failed'].indexOf(entry.status) >= 0
  );
}

export function loadDecisions(): void {
  try {
    const stored = JSON.parse(
      localStorage.getItem(REVIEW_KEY) || localStorage.getItem(REVIEW_KEY_BY_PATH) || '{}',
    ) as unknown;
    if (stored && typeof stored === 'object') decisionStore = stored as Record<string, StoredDecision>;
    reviewAny = Object.keys(decisionStore).length > 0;
  } catch {
    decisionStore = {};
  }
}

export function saveDecisions(): void {
  reviewAny = Object.keys(decisionStore).length > 0;
  try {
    localStorage.setItem(REVIEW_KEY, JSON.stringify(decisionStore));
  } catch {
    // Private mode: kept for this visit.
  }
}

/** A decision counts only for the attempt it was made on: a re-generated job starts undecided. */
export function decisionOf(entry: PageEntry, file: number): StoredDecision | undefined {
  const found = decisionStore[decisionKey(entry.id, file)];
  if (!found || found.attempt !== entry.attempt || found.payloadHash !== entry.payloadHash) return undefined;
  return found;
}

/**
 * Records a decision (undefined: keep the current one) and a note (undefined: keep it) on a job's
 * result (0: the job); false when the job has nothing to review.
 */
export function recordDecision(
  index: number,
  file: number,
  decision: Decision | '' | undefined,
  note?: string,
): boolean {
  const entry = entries[index]!;
  if (!canReview(entry)) return false;
  const key = decisionKey(entry.id, file);
  const current: Partial<StoredDecision> = decisionOf(entry, file) || {};
  const next: StoredDecision = {
    jobId: entry.id,
    decision: decision === undefined ? current.decision || '' : decision,
    attempt: entry.attempt!,
    payloadHash: entry.payloadHash!,
    decidedAt: new Date().toISOString(),
  };
  if (file) next.file = file;
  const text = note === undefined ? current.note : note;
  if (text) next.note = text.slice(0, MAX_NOTE_LENGTH);
  if (!next.decision && !next.note) delete decisionStore[key];
  else decisionStore[key] = next;
  saveDecisions();
  return true;
}

/** A job's verdict: rejected when it or any of its results is; approved when it is, or all its results are. */
export function verdictOf(index: number): Verdict {
  const entry = entries[index]!;
  if (!canReview(entry)) return 'none';
  if (!reviewAny) return 'to-review';
  const own = decisionOf(entry, 0);
  if (own && own.decision === 'rejected') return 'rejected';
  let allApproved = entry.files.length > 0;
  for (let at = 0; at < entry.files.length; at++) {
    const item = decisionOf(entry, at + 1);
    if (item && item.decision === 'rejected') return 'rejected';
    if (!item || item.decision !== 'approved') allApproved = false;
  }
  return (own && own.decision === 'approved') || allApproved ? 'approved' : 'to-review';
}

export function reviewFilterMiss(index: number): boolean {
  return state.review !== '' && verdictOf(index) !== state.review;
}
