import type { Clock } from '../clock.js';
import type { ServiceClient } from '../service/service-client.js';
import type { JobState } from '../state/job-state.js';
import type { JournalWriter } from '../state/journal.js';
import type { JournalEntry } from '../state/records.js';
import { applyJournalRecord } from '../state/replay.js';
import type { UploadCache } from '../state/upload-cache.js';
import type { Budget } from './budget.js';
import type { JobLimiter } from './concurrency.js';
import type { ExecutionEvent, StopReason } from './events.js';
import type { ResolvedOptions } from './options.js';

/** Shared by every job of one `executePlan` call. */
export interface ExecutionContext {
  readonly pipeline: string;
  readonly options: ResolvedOptions;
  readonly client: ServiceClient;
  readonly clock: Clock;
  readonly random: () => number;
  readonly uploadCache: UploadCache;
  readonly uploadsInFlight: Map<string, Promise<string>>;
  readonly budget: Budget;
  readonly limiter: JobLimiter;
  /** Live state: the replayed jobs with every record this run journals applied. */
  readonly jobs: Map<string, JobState>;
  /** Aborted on 401/403: every request and wait stops at once. */
  readonly hardSignal: AbortSignal;
  emit(event: ExecutionEvent): void;
  /** Journals (fsynced) and then applies the record to the live state. */
  record(entry: JournalEntry): Promise<void>;
  /** Why no new job may be created, or undefined. */
  stopReason(): StopReason | undefined;
  stopCreating(reason: StopReason, message: string): void;
  /** Stops everything (401/403). */
  abortAll(message: string): void;
}

export function createExecutionContext(input: {
  pipeline: string;
  options: ResolvedOptions;
  client: ServiceClient;
  clock: Clock;
  random: () => number;
  uploadCache: UploadCache;
  budget: Budget;
  limiter: JobLimiter;
  jobs: Map<string, JobState>;
  journal: JournalWriter;
  onEvent: (event: ExecutionEvent) => void;
}): ExecutionContext {
  const hard = new AbortController();
  let stop: StopReason | undefined;
  const ctx: ExecutionContext = {
    pipeline: input.pipeline,
    options: input.options,
    client: input.client,
    clock: input.clock,
    random: input.random,
    uploadCache: input.uploadCache,
    uploadsInFlight: new Map(),
    budget: input.budget,
    limiter: input.limiter,
    jobs: input.jobs,
    hardSignal: hard.signal,
    emit: input.onEvent,
    async record(entry) {
      const written = await input.journal.append(entry);
      applyJournalRecord(input.jobs, written);
    },
    stopReason: () => stop,
    stopCreating(reason, message) {
      if (stop !== undefined) return;
      stop = reason;
      input.onEvent({ type: 'stopped-creating', reason, message });
    },
    abortAll(message) {
      ctx.stopCreating('auth', message);
      hard.abort(new Error(message));
    },
  };
  return ctx;
}
