import { createHash } from 'node:crypto';

export interface IdempotencyKeyInput {
  pipeline: string;
  runId: string;
  /** The manifest job's id (not the service's jobId). */
  jobId: string;
  payloadHash: string;
  attempt: number;
}

/**
 * The key sent with a create: deterministic, so a re-run after a crash re-sends the same key and the
 * service answers with the job it already made instead of charging again (spec 4.3 rule 4).
 * A new attempt or a changed payload gives a new key.
 *
 * @example deriveIdempotencyKey({ pipeline: 'p', runId: 'r', jobId: 'a', payloadHash: 'h', attempt: 1 })
 * // 'rn-' followed by 32 lowercase hex digits
 */
export function deriveIdempotencyKey(input: IdempotencyKeyInput): string {
  // A JSON array keeps fields apart: ('a|b', 'c') and ('a', 'b|c') hash differently.
  const material = JSON.stringify([
    'runner-idempotency-v1',
    input.pipeline,
    input.runId,
    input.jobId,
    input.payloadHash,
    input.attempt,
  ]);
  return `rn-${createHash('sha256').update(material).digest('hex').slice(0, 32)}`;
}
