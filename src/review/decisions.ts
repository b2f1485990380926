/** Marks a JSON file as review decisions; read by its content, whatever its name. */
export const DECISIONS_KIND = 'runner-review-decisions';

/** The decisions file's format version (`schemas/review-decisions.schema.json`). */
export const DECISIONS_VERSION = 1;

/** Longest note kept (characters); the page's note field stops there too. */
export const MAX_NOTE_LENGTH = 2000;

/** What a reviewer decided about a job or one of its results. */
export type Decision = 'approved' | 'rejected';

/**
 * One decision of a decisions file: on the whole job (no `file`) or on its `file`-th result, made on
 * attempt `attempt` of the job (whose payload hash was `payloadHash`).
 */
export interface ReviewDecision {
  jobId: string;
  /** 1-based result index; absent for a decision on the whole job. */
  file?: number;
  decision: Decision;
  note?: string;
  attempt: number;
  payloadHash: string;
  decidedAt?: string;
}

/**
 * The decisions file the report page exports (docs/review.md): versioned like every JSON
 * document of the runner; fields may be added within a version.
 */
export interface DecisionsFile {
  kind: typeof DECISIONS_KIND;
  schemaVersion: typeof DECISIONS_VERSION;
  pipeline: string;
  runId: string;
  exportedAt?: string;
  report?: { generatedAt?: string; manifestFile?: string };
  decisions: ReviewDecision[];
}
