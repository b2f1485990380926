/**
 * From the service's polled job to the runner's {@link JobRecord}: status words to phases
 * (case-insensitively, api-notes) and the result URLs.
 */
import { describeCredits, readCredits } from './credit-cost.js';
import { capText } from './cap-text.js';
import type { ChargeSource, JobPhase, JobRecord } from './types.js';

/** The service deletes results 7 days after a job completes (api-notes: "Polled job record"). */
export const RESULT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

const PHASES: Record<string, JobPhase> = {
  waitingforagent: 'queued',
  queued: 'queued',
  pending: 'queued',
  processing: 'running',
  running: 'running',
  complete: 'complete',
  completed: 'complete',
  error: 'failed',
  failed: 'failed',
  cancelled: 'failed',
  canceled: 'failed',
};

/** `WaitingForAgent` → queued, `Processing` → running, `complete(d)` → complete, failures → failed. */
export function normalizeJobPhase(status: string): JobPhase {
  return PHASES[status.trim().toLowerCase()] ?? 'unknown';
}

/** The polled job's `data`, as far as `schemas/api/job-record.schema.json` guarantees it. */
export interface RawJobRecord {
  jobId: string;
  status: string;
  progress?: number | null;
  resultUrl?: string | null;
  resultUrls?: unknown[] | null;
  resultImages?: unknown[] | null;
  resultImage?: string | null;
  creditCost?: unknown;
  chargeSource?: string | null;
  quotaRemaining?: number | null;
  failureKind?: string | null;
  error?: string | null;
  errorMessage?: string | null;
  step?: string | null;
  /** Fields the runner does not read: named when a completed job has no result it recognises. */
  [field: string]: unknown;
}

/** Where a result may be, in the order real clients look (api-notes). */
export const RESULT_FIELDS = ['resultImages', 'resultUrls', 'resultUrl', 'resultImage'] as const;

/**
 * Builds the record. Results: the arrays `resultImages` / `resultUrls` (they list every image, a job
 * may yield two), falling back to `resultUrl`, then `resultImage`; empty unless complete. A complete
 * job without any is described in `unrecognizedResult`. Strings are capped (see {@link capText}).
 */
export function buildJobRecord(raw: RawJobRecord): JobRecord {
  const status = capText(raw.status, 200);
  const phase = normalizeJobPhase(raw.status);
  const record: JobRecord = {
    jobId: raw.jobId,
    status,
    phase,
    resultUrls: phase === 'complete' ? pickResultUrls(raw) : [],
  };
  if (typeof raw.progress === 'number') record.progress = raw.progress;
  readReportedCost(raw.creditCost, record);
  const chargeSource = toChargeSource(raw.chargeSource);
  if (chargeSource !== undefined) record.chargeSource = chargeSource;
  if (raw.quotaRemaining !== undefined) record.quotaRemaining = raw.quotaRemaining;
  if (typeof raw.failureKind === 'string' && raw.failureKind !== '')
    record.failureKind = capText(raw.failureKind, 200);
  const failureText = readFailureText(raw);
  if (failureText !== undefined) record.error = failureText;
  else if (raw.error !== undefined) record.error = raw.error;
  if (phase === 'complete' && record.resultUrls.length === 0) record.unrecognizedResult = describeFields(raw);
  return record;
}

function pickResultUrls(raw: RawJobRecord): string[] {
  for (const field of ['resultImages', 'resultUrls'] as const) {
    const urls = (raw[field] ?? []).filter((url): url is string => typeof url === 'string' && url !== '');
    if (urls.length > 0) return urls;
  }
  for (const field of ['resultUrl', 'resultImage'] as const) {
    const url = raw[field];
    if (typeof url === 'string' && url !== '') return [url];
  }
  return [];
}

/**
 * The failure text wherever the service put it (api-notes: `error`, `errorMessage`, or a `step`
 * naming where it stopped), joined when there are several, capped.
 */
function readFailureText(raw: RawJobRecord): string | undefined {
  const parts: string[] = [];
  for (const field of ['error', 'errorMessage'] as const) {
    const text = raw[field];
    if (typeof text === 'string' && text.trim() !== '' && !parts.includes(text)) parts.push(text);
  }
  if (typeof raw.step === 'string' && raw.step.trim() !== '') parts.push(`step: ${raw.step}`);
  return parts.length === 0 ? undefined : capText(parts.join('; '));
}

/** `jobId, status "complete", output {"note":"…"}`: every field of the answer, values short. */
function describeFields(raw: RawJobRecord): string {
  const parts = Object.entries(raw)
    .filter(([, value]) => value !== undefined)
    .map(([field, value]) => `${field} ${capText(JSON.stringify(value) ?? String(value), 200)}`);
  return capText(parts.join(', '));
}

/**
 * A reported cost into `creditCost` when it is a usable count (numeric text included), else into
 * `unusableCreditCost` as it read; `null` or no field is no report.
 */
export function readReportedCost(
  value: unknown,
  into: { creditCost?: number; unusableCreditCost?: string },
): void {
  if (value === undefined || value === null) return;
  const credits = readCredits(value);
  if (credits === undefined) into.unusableCreditCost = describeCredits(value);
  else into.creditCost = credits;
}

/** `Subscription` / `Credit` compared case-insensitively; other values are dropped. */
export function toChargeSource(value: string | null | undefined): ChargeSource | undefined {
  const lower = value?.toLowerCase();
  if (lower === 'subscription') return 'Subscription';
  if (lower === 'credit') return 'Credit';
  return undefined;
}
