import type { PartOutcome } from './plan-part.js';

/** What a plan part's worker posts (`plan-part-worker.ts`), in this order: tallied, json…, end. */
export type PartMessage =
  { type: 'tallied'; outcome: PartOutcome } | { type: 'json'; bytes: Uint8Array } | { type: 'end' };

/** What the main thread asks of it: its rows' JSON once, then one `more` per batch written. */
export type PartRequest =
  { type: 'json'; covered: Uint8Array | undefined; paramsRefs: Uint32Array } | { type: 'more' };
