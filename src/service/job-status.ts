/**
 * From the service's polled job to the runner's {@link JobRecord}: status words to phases
 * (case-insensitively, api-notes) and the result URLs.
 */
import type { ChargeSource, JobPhase, JobRecord } from './types.js';

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
  resultImages?: unknown[] | null;
  creditCost?: number | null;
  chargeSource?: string | null;
  quotaRemaining?: number | null;
  failureKind?: string | null;
  error?: string | null;
}

/** Builds the record; `resultUrls` is `resultImages`, falling back to `[resultUrl]`, empty unless complete. */
export function buildJobRecord(raw: RawJobRecord): JobRecord {
  const phase = normalizeJobPhase(raw.status);
  const record: JobRecord = {
    jobId: raw.jobId,
    status: raw.status,
    phase,
    resultUrls: phase === 'complete' ? pickResultUrls(raw) : [],
  };
  if (typeof raw.progress === 'number') record.progress = raw.progress;
  if (typeof raw.creditCost === 'number') record.creditCost = raw.creditCost;
  const chargeSource = toChargeSource(raw.chargeSource);
  if (chargeSource !== undefined) record.chargeSource = chargeSource;
  if (raw.quotaRemaining !== undefined) record.quotaRemaining = raw.quotaRemaining;
  if (typeof raw.failureKind === 'string' && raw.failureKind !== '') record.failureKind = raw.failureKind;
  if (raw.error !== undefined) record.error = raw.error;
  return record;
}

function pickResultUrls(raw: RawJobRecord): string[] {
  const images = (raw.resultImages ?? []).filter(
    (url): url is string => typeof url === 'string' && url !== '',
  );
  if (images.length > 0) return images;
  return typeof raw.resultUrl === 'string' && raw.resultUrl !== '' ? [raw.resultUrl] : [];
}

/** `Subscription` / `Credit` compared case-insensitively; other values are dropped. */
export function toChargeSource(value: string | null | undefined): ChargeSource | undefined {
  const lower = value?.toLowerCase();
  if (lower === 'subscription') return 'Subscription';
  if (lower === 'credit') return 'Credit';
  return undefined;
}
