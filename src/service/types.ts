/**
 * The service's resources, in the service's own words (api-spec.md section 2, api-notes.md).
 * These are the shapes the client returns after checking responses against `schemas/api/`.
 */

/** Spec 2.3. */
export const MODEL_CATEGORIES = [
  'image',
  'video',
  'voiceovervideo',
  'stockvideo',
  'slideshowvideo',
  'inpaint',
  'creativevideo',
  'articlevideo',
  'highlightvideo',
  'render',
  'scrape',
] as const;
export type ModelCategory = (typeof MODEL_CATEGORIES)[number];

/** Spec 2.4. */
export const FIELD_TYPES = ['select', 'card-select', 'number', 'text', 'toggle', 'upload'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export interface FieldOption {
  value: string | number | boolean;
  label: string;
  imageUrl?: string | null;
}

/** Spec 2.4, field definition. */
export interface FieldDefinition {
  type: FieldType;
  label: string;
  labelVi?: string;
  options?: FieldOption[];
  default?: unknown;
  min?: number;
  max?: number;
  advanced?: boolean;
  optional?: boolean;
  creditCostMultiplier?: boolean;
}

/**
 * Spec 2.4: a keyed object; each key a parameter name, each value a field definition, except the
 * special keys `_badges` and `maxRefImages`.
 */
export type ModelConfig = Record<string, unknown> & {
  _badges?: unknown;
  maxRefImages?: number;
};

/** Spec 2.2. */
export interface Model {
  slug: string;
  displayName: string;
  category: ModelCategory;
  /**
   * Credits per generation, as the catalog sent it: read it with `readCredits`
   * (src/service/credit-cost.ts); a job of a model whose cost is not a finite number >= 0 is refused.
   */
  creditCost: unknown;
  description?: string | null;
  imageUrl?: string | null;
  config?: ModelConfig | null;
}

/**
 * Spec 2.5 without `apiKey`: the client drops the key at the edge, so no caller can log it. Only
 * `availableCredit` is needed (read from the older `credits` when that is all there is, api-notes);
 * the other figures are kept when the service sends them.
 */
export interface Balance {
  availableCredit: number;
  freeCredit?: number;
  purchasedCredit?: number;
  lockedCredit?: number;
  hasPurchased?: boolean;
  topupMemo?: string;
}

/** api-notes: `GET /account/subscription`. */
export interface Subscription {
  tier: string;
  maxConcurrentJobs?: number;
  quotas: { capability: string; remaining: number }[];
}

export type ChargeSource = 'Subscription' | 'Credit';

/** Spec 2.6. Video endpoints are assumed to answer with at least `jobId` (their payloads are "not shown"). */
export interface JobCreation {
  jobId: string;
  status: string;
  chargeSource?: ChargeSource;
  /** What the job cost: a finite number of 0 or more (numeric text is read as a number). */
  creditCost?: number;
  /**
   * A `creditCost` the service sent that is not a usable count (negative, non-finite, not a number),
   * as it read: left out of `creditCost`, so the job is counted at its estimate (issue #24.2).
   */
  unusableCreditCost?: string;
  quotaRemaining?: number | null;
  queuePosition?: number;
  queueDepth?: number;
  runningJobs?: number;
  concurrency?: number;
  capReason?: string;
  runningOnFallback?: boolean | null;
}

/** Spec 7.3. */
export const FAILURE_KINDS = [
  'PROMPT_UNCLEAR',
  'CONTENT_REJECTED',
  'TRANSPARENT_CREATION_FAILED',
  'REFERENCE_DOWNLOAD_FAILED',
  'GENERATION_TIMEOUT',
  'QUOTA_EXHAUSTED',
  'SESSION_EXPIRED',
  'INVALID_PAYLOAD',
] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

/**
 * Where a polled job stands, from its `status` compared case-insensitively (api-notes):
 * `WaitingForAgent` → queued, `Processing` → running, `complete` → complete,
 * `error`/`failed`/`cancelled`/`canceled` → failed. Anything else is `unknown`: reported, never
 * mistaken for success.
 */
export type JobPhase = 'queued' | 'running' | 'complete' | 'failed' | 'unknown';

/** Spec 2.7 plus api-notes' polled job record. */
export interface JobRecord {
  jobId: string;
  /** The status exactly as the service sent it. */
  status: string;
  phase: JobPhase;
  /** 0–100 while running. */
  progress?: number;
  /** `resultImages`, falling back to `[resultUrl]`; empty unless complete. */
  resultUrls: string[];
  /** As {@link JobCreation.creditCost}. */
  creditCost?: number;
  /** As {@link JobCreation.unusableCreditCost}. */
  unusableCreditCost?: string;
  chargeSource?: ChargeSource;
  quotaRemaining?: number | null;
  /** One of {@link FAILURE_KINDS} as expected, but kept as the service's string when it is another. */
  failureKind?: string;
  /** The failure text from `error`, `errorMessage` or `step` (api-notes), capped at 2 KB. */
  error?: string | null;
  /**
   * Set when the job is complete but names no result the runner recognises: every field of the
   * answer with short values, so the job (its id is kept) can be recovered by hand or a later version.
   */
  unrecognizedResult?: string;
}

/** api-notes: `POST /images/presign`. */
export interface PresignedUpload {
  sasUrl: string;
  publicUrl: string;
}
