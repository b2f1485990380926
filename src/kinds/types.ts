import type { ModelCategory } from '../service/types.js';

/** The job kinds a manifest can name; each maps to one creation endpoint of the service. */
export const JOB_KINDS = [
  'image',
  'render-video',
  'voiceover-video',
  'stock-video',
  'slideshow-video',
  'article-video',
] as const;
export type JobKind = (typeof JOB_KINDS)[number];

/**
 * One creation endpoint of the service. Adding a job kind is one new file implementing this and one
 * line in the registry (`./index.ts`).
 */
export interface JobKindAdapter {
  readonly kind: JobKind;
  /** Catalog categories (spec 2.3) whose models this endpoint accepts. */
  readonly categories: readonly ModelCategory[];
  /** Path relative to the base URL, e.g. `/agents/jobs/create`. */
  readonly createPath: string;
  /**
   * Whether the service documents `idempotencyKey` for this endpoint. Only the subscription image job
   * does (spec 4.3 rule 4); for the others a create whose answer was lost cannot be safely re-sent.
   */
  readonly idempotent: boolean;
  /** A poll before this is pointless (api-notes: image jobs take 30–90 s). */
  readonly firstPollAfterMs: number;
  /** How long a job of this kind usually takes; used for ETAs. */
  readonly typicalDurationMs: number;
  /**
   * The request body: config values go as top-level parameters next to `prompt` and `model`
   * (spec 2.4). `params` already have local files replaced by uploaded URLs.
   */
  buildBody(input: {
    model: string;
    prompt: string | undefined;
    params: Record<string, unknown>;
  }): Record<string, unknown>;
}
