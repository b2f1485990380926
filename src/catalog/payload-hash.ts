import { hash } from 'node:crypto';
import { isLocalFileRef } from './local-files.js';
import type { PlannedJob } from '../manifest/planned-job.js';
import { writeCanonical } from '../canonical-json.js';

/** The fields of a job that decide what the service is asked to make. */
export interface HashablePayload {
  kind: PlannedJob['kind'];
  model: string;
  prompt?: string | undefined;
  params: PlannedJob['params'];
}

/**
 * SHA-256 (hex) of the canonical JSON of `{kind, model, prompt, params}`, with every local file
 * replaced by `{ file: sha256 }` of its bytes: moving or renaming a file does not change the hash,
 * editing its content does. Idempotency keys and "changed since the last run" are derived from it, so
 * this function's output must never change for equal input.
 */
export function hashPayload(job: HashablePayload): string {
  const payload: Record<string, unknown> = { kind: job.kind, model: job.model, params: job.params };
  if (job.prompt !== undefined) payload.prompt = job.prompt;
  // The one-shot hash (Node >= 20.12) is ~2x faster than createHash().update().digest() per job.
  return hash('sha256', writeCanonical(payload, fileRefByHash) ?? 'null', 'hex');
}

/**
 * {@link hashPayload} from the canonical JSON of the params already written by
 * {@link canonicalHashedParams}: the same text `hashPayload` hashes (keys `kind`, `model`, `params`,
 * `prompt` in order), so a caller that has the params' text saves writing them again.
 */
export function hashPayloadWithParams(
  job: Pick<HashablePayload, 'kind' | 'model' | 'prompt'>,
  paramsJson: string,
): string {
  return hashPayloadAfter(payloadHashPrefix(job, paramsJson), job.prompt);
}

/**
 * What {@link hashPayloadWithParams} hashes before the prompt: the same for every job of one kind,
 * model and params, so a caller planning many such jobs writes it once (writing it per job was 6 % of
 * planning 1,000,000 jobs, `--cpu-prof`).
 */
export function payloadHashPrefix(job: Pick<HashablePayload, 'kind' | 'model'>, paramsJson: string): string {
  return `{"kind":${JSON.stringify(job.kind)},"model":${JSON.stringify(job.model)},"params":${paramsJson}`;
}

/** {@link hashPayloadWithParams} of a job whose {@link payloadHashPrefix} is `prefix`. */
export function hashPayloadAfter(prefix: string, prompt: string | undefined): string {
  return hashPayloadAfterPromptJson(prefix, prompt === undefined ? undefined : JSON.stringify(prompt));
}

/**
 * {@link hashPayloadAfter} given `JSON.stringify(prompt)` (`undefined`: the job has no prompt), for a
 * caller that writes the prompt's JSON anyway (the plan report): one `JSON.stringify` of it, not two.
 */
export function hashPayloadAfterPromptJson(prefix: string, promptJson: string | undefined): string {
  const text = promptJson === undefined ? `${prefix}}` : `${prefix},"prompt":${promptJson}}`;
  return hash('sha256', text, 'hex');
}

/** The params as {@link hashPayload} writes them: canonical JSON, each local file as `{"file":sha256}`. */
export function canonicalHashedParams(params: HashablePayload['params']): string {
  return writeCanonical(params, fileRefByHash) ?? 'null';
}

/** What tells whether a journaled hash names a job: its identity hash, and what it sends. */
export interface PayloadHashes {
  payloadHash: string;
  /** What the job sends, from which its legacy hash is computed if a journaled hash asks for it. */
  payload?: HashablePayload | undefined;
}

/**
 * Whether a journaled attempt's payload hash names this job as it is now: its identity hash (what the
 * user wrote) or, for journals written before identity hashes, its legacy hash (catalog defaults
 * folded in), computed only here, for a hash that is not the identity hash. Matching both means an
 * upgrade does not take open or done jobs for changed ones.
 */
export function matchesPayload(hash: string, job: PayloadHashes): boolean {
  return hash === job.payloadHash || (job.payload !== undefined && hash === legacyPayloadHash(job.payload));
}

/**
 * The hash releases up to 0.1.0 journaled for a planned job: {@link hashPayload} of what is sent, the
 * catalog's defaults folded into its params. {@link matchesPayload} asks for it only for a journaled
 * hash that is not the job's identity hash (a changed job, or a journal of those releases), not for
 * every job of a plan: hashing is the costliest step of planning a job. Kept per payload once computed.
 */
export function legacyPayloadHash(job: HashablePayload): string {
  let hash = legacyHashes.get(job);
  if (hash === undefined) {
    hash = hashPayload(job);
    legacyHashes.set(job, hash);
  }
  return hash;
}

const legacyHashes = new WeakMap<HashablePayload, string>();

/** {@link matchesPayload} for a planned job. */
export function matchesPlannedJob(hash: string, job: HashablePayload & { payloadHash: string }): boolean {
  return matchesPayload(hash, { payloadHash: job.payloadHash, payload: job });
}

/** A local file as `{"file":sha256}`: moving it keeps the hash, editing it changes it. */
function fileRefByHash(value: object): string | undefined {
  return isLocalFileRef(value) ? `{"file":${JSON.stringify(value.sha256)}}` : undefined;
}
