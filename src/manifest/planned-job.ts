import type { JobKind } from '../kinds/types.js';
import type { ExpandedJob } from './types.js';

/**
 * A param value after validation: what the manifest said, with local file paths turned into refs:
 * a `LocalFileRef` (src/manifest/types.ts), an array of `string | LocalFileRef`, or any other value
 * as written. Typed as `unknown` because a union with `unknown` collapses to it anyway (and lint
 * refuses the redundant union); `isLocalFileRef` in `src/catalog/local-files.ts` tells refs apart.
 */
export type PlannedParamValue = unknown;

/** One job that passed validation, ready to cost and to run. */
export interface PlannedJob {
  id: string;
  kind: JobKind;
  model: string;
  prompt?: string;
  /** Validated params, model-config defaults applied, local files as {@link LocalFileRef}. */
  params: Record<string, PlannedParamValue>;
  /** The model's `creditCost` × every `creditCostMultiplier` value (spec 2.4). */
  estimatedCredits: number;
  /**
   * The job's identity: SHA-256 of the canonical payload AS WRITTEN (kind, model, prompt, the params the
   * manifest gives, files by content hash), without the catalog's defaults. A changed prompt or param
   * changes it, so the job counts as a new job; a default the service changes does not (issue #11.2).
   * Releases up to 0.1.0 journaled the hash of what is sent, defaults folded in: `legacyPayloadHash`
   * (payload-hash.ts) gives it when a journaled hash is not this one (an upgrade must not pay twice).
   */
  payloadHash: string;
  /** Back-reference for messages and reports. */
  source: Pick<ExpandedJob, 'matrixValues' | 'specIndex' | 'origins'>;
}
