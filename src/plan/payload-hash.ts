import { hash } from 'node:crypto';
import { isLocalFileRef } from '../catalog/local-files.js';
import type { PlannedJob } from './types.js';

/**
 * JSON with object keys sorted recursively (by UTF-16 code unit order), so equal values give equal
 * text whatever order their keys were written in. Follows `JSON.stringify` otherwise: `undefined`
 * and functions inside objects are dropped, inside arrays become `null`; non-finite numbers become
 * `null`; `toJSON` is honoured.
 *
 * @example canonicalJson({ b: 1, a: [2, { d: 3, c: 4 }] }) // '{"a":[2,{"c":4,"d":3}],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  return writeCanonical(value, false) ?? 'null';
}

/** `fileRefsByHash`: write every {@link LocalFileRef} as `{"file":sha256}` (for {@link hashPayload}). */
function writeCanonical(value: unknown, fileRefsByHash: boolean): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'bigint':
      // JSON.stringify throws on bigint; a decimal string keeps hashing total instead of crashing.
      return JSON.stringify(value.toString());
    case 'object':
      break;
    default:
      return undefined;
  }
  if (fileRefsByHash && isLocalFileRef(value)) return `{"file":${JSON.stringify(value.sha256)}}`;
  const withToJson = value as { toJSON?: () => unknown };
  if (typeof withToJson.toJSON === 'function') return writeCanonical(withToJson.toJSON(), fileRefsByHash);
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) text += ',';
      text += writeCanonical(value[i], fileRefsByHash) ?? 'null';
    }
    return `${text}]`;
  }
  const record = value as Record<string, unknown>;
  let text = '{';
  for (const key of Object.keys(record).sort()) {
    const inner = writeCanonical(record[key], fileRefsByHash);
    if (inner === undefined) continue;
    if (text.length > 1) text += ',';
    text += `${JSON.stringify(key)}:${inner}`;
  }
  return `${text}}`;
}

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
  return hash('sha256', writeCanonical(payload, true) ?? 'null', 'hex');
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
