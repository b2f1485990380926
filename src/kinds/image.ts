import { buildFlatBody } from './body.js';
import type { JobKindAdapter } from './types.js';

/** Spec 4.3: the subscription image job. */
export const imageKind: JobKindAdapter = {
  kind: 'image',
  categories: ['image'],
  createPath: '/agents/jobs/create',
  idempotent: true,
  firstPollAfterMs: 10_000,
  typicalDurationMs: 60_000,
  buildBody: buildFlatBody,
};
