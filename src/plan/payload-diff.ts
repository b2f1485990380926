import { isLocalFileRef } from '../catalog/local-files.js';
import { canonicalJson, writeCanonical } from '../canonical-json.js';
import { type JobState, viewJobState } from '../state/index.js';
import type { PlannedJob } from '../manifest/planned-job.js';

/**
 * What a job asked the service for, as the journal keeps it with each create intent: local files
 * by name and content hash (not their absolute path), so a later plan can say what changed.
 */
export interface PayloadSnapshot {
  kind: string;
  model: string;
  prompt?: string;
  params: Record<string, unknown>;
}

/** One changed field, Terraform style: `~` changed, `+` added, `-` removed. */
export interface FieldChange {
  /** `kind`, `model`, `prompt` or `params.NAME`. */
  field: string;
  change: '~' | '+' | '-';
  before?: unknown;
  after?: unknown;
}

/** The snapshot of a planned job that the create intent journals. */
export function snapshotPayload(
  job: Pick<PlannedJob, 'kind' | 'model' | 'prompt' | 'params'>,
): PayloadSnapshot {
  const params: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(job.params)) params[name] = snapshotValue(value);
  return {
    kind: job.kind,
    model: job.model,
    ...(job.prompt === undefined ? {} : { prompt: job.prompt }),
    params,
  };
}

/**
 * A job's params as the plan report shows them to `runner diff`: canonical JSON (keys sorted), each
 * local file as `{"file":name,"sha256":hash}` as the journal keeps it, never its absolute path.
 */
export function shownParamsJson(params: Readonly<Record<string, unknown>>): string {
  return writeCanonical(params, fileRefByName) ?? '{}';
}

function fileRefByName(value: object): string | undefined {
  return isLocalFileRef(value)
    ? `{"file":${JSON.stringify(value.localFile)},"sha256":${JSON.stringify(value.sha256)}}`
    : undefined;
}

function snapshotValue(value: unknown): unknown {
  if (isLocalFileRef(value)) return { file: value.localFile, sha256: value.sha256 };
  if (Array.isArray(value)) return value.map(snapshotValue);
  return value;
}

/** Field-by-field differences between two payloads; empty when they are equal. */
export function diffPayloads(before: PayloadSnapshot, after: PayloadSnapshot): FieldChange[] {
  const changes: FieldChange[] = [];
  const compare = (field: string, a: unknown, b: unknown): void => {
    if (a === undefined && b === undefined) return;
    if (a === undefined) changes.push({ field, change: '+', after: b });
    else if (b === undefined) changes.push({ field, change: '-', before: a });
    else if (canonicalJson(a) !== canonicalJson(b)) changes.push({ field, change: '~', before: a, after: b });
  };
  compare('kind', before.kind, after.kind);
  compare('model', before.model, after.model);
  compare('prompt', before.prompt, after.prompt);
  const names = [...new Set([...Object.keys(before.params), ...Object.keys(after.params)])].sort();
  for (const name of names) compare(`params.${name}`, before.params[name], after.params[name]);
  return changes;
}

/**
 * The payload each job last asked for, from the replayed state: the latest attempt whose intent
 * journaled one. The journal is a file on disk, so each payload is checked for shape before use.
 */
export function readLastPayloads(jobs: ReadonlyMap<string, JobState>): LastPayloads {
  return {
    changedFrom(id, payloadHash) {
      const known = jobs.get(id);
      // The same hash is the same payload: nothing to show, and nothing to read from a snapshot.
      if (known === undefined || known.payloadHash === payloadHash) return undefined;
      const payload = viewJobState(known).attempts.findLast(
        (attempt) => attempt.payload !== undefined,
      )?.payload;
      return isSnapshot(payload) ? payload : undefined;
    },
  };
}

/** The payloads the jobs of a replayed state last asked for, read when a job's payload changed. */
export interface LastPayloads {
  /** The job's last journaled payload, unless its latest attempt was sent with `payloadHash`. */
  changedFrom(id: string, payloadHash: string): PayloadSnapshot | undefined;
}

function isSnapshot(value: unknown): value is PayloadSnapshot {
  if (typeof value !== 'object' || value === null) return false;
  const snapshot = value as Record<string, unknown>;
  return (
    typeof snapshot.kind === 'string' &&
    typeof snapshot.model === 'string' &&
    typeof snapshot.params === 'object' &&
    snapshot.params !== null
  );
}

/** Changed jobs of a plan with their field changes, in plan order (jobs without a journaled payload are left out). */
export function diffPlanAgainstState(
  jobs: readonly PlannedJob[],
  last: LastPayloads,
): { id: string; changes: FieldChange[] }[] {
  const result: { id: string; changes: FieldChange[] }[] = [];
  for (const job of jobs) {
    const before = last.changedFrom(job.id, job.payloadHash);
    if (before === undefined) continue;
    const changes = diffPayloads(before, snapshotPayload(job));
    if (changes.length > 0) result.push({ id: job.id, changes });
  }
  return result;
}

/** A diff as text lines, Terraform style: `~ id` then one `  ~ field: before → after` per change. */
export function renderPlanDiff(diff: readonly { id: string; changes: FieldChange[] }[]): string[] {
  const lines: string[] = [];
  for (const { id, changes } of diff) {
    lines.push(`~ ${id}`);
    for (const change of changes) {
      const text =
        change.change === '~'
          ? `${show(change.before)} → ${show(change.after)}`
          : show(change.change === '+' ? change.after : change.before);
      lines.push(`    ${change.change} ${change.field}: ${text}`);
    }
  }
  return lines;
}

function show(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}
