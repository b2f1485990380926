import type { JobOutcome } from './outcomes.js';

/**
 * The job store and the per-user queue (spec 8): at most `concurrencyLimit` jobs run at once across
 * every endpoint; the rest wait FIFO. Nothing runs on timers: `advance(now)` replays, in time order,
 * every finish (and the queue starts it frees) up to `now`, so the lifecycle follows any clock exactly.
 */

export type JobState = 'queued' | 'running' | 'complete' | 'error';

export interface SimJob {
  jobId: string;
  /** The creation endpoint's kind, e.g. `image`, `voiceover-video`. */
  kind: string;
  model: string;
  prompt: string | undefined;
  /** How many jobs were created with this prompt before this one (absent: none): its picture differs. */
  generation?: number;
  /** The create's body without its `idempotencyKey`, as the job listing shows it. */
  payload?: Record<string, unknown>;
  /** The image param `aspectRatio`, for the shape of the placeholder results. */
  aspectRatio?: string;
  /** Extension of the result files. */
  resultExt: 'png' | 'jpeg' | 'mp4';
  idempotencyKey?: string;
  creditCost: number;
  chargeSource: 'Subscription' | 'Credit';
  quotaRemaining: number | null;
  createdAt: number;
  /** Time-scaled run time. */
  durationMs: number;
  outcome: JobOutcome;
  /** `[[status:X]]`: reported instead of `Processing` while running. */
  runningStatus?: string;
  state: JobState;
  startedAt?: number;
  endsAt?: number;
}

export interface QueueFigures {
  /** 0 when the job started at once, else its 1-based place in the queue. */
  queuePosition: number;
  queueDepth: number;
  runningJobs: number;
}

export interface JobEngine {
  /** Applies every finish and start due by `now`. */
  advance(now: number): void;
  /** Adds a job at `now` (call `advance(now)` first): starts it when a slot is free, else queues it. */
  add(job: SimJob, now: number): QueueFigures;
  get(jobId: string): SimJob | undefined;
  all(): SimJob[];
  figuresFor(job: SimJob): QueueFigures;
  queueDepth(): number;
  runningCount(): number;
  maxRunningAtOnce(): number;
  /** Most jobs queued or running at one moment. */
  maxOpenAtOnce(): number;
}

export function createJobEngine(options: {
  concurrencyLimit: number;
  /** Called once per job when it completes or fails, at simulated time `job.endsAt`. */
  onFinish: (job: SimJob) => void;
}): JobEngine {
  const jobs = new Map<string, SimJob>();
  const queue: SimJob[] = [];
  const running = new Set<SimJob>();
  let maxRunning = 0;
  let maxOpen = 0;

  function start(job: SimJob, at: number): void {
    job.state = 'running';
    job.startedAt = at;
    const fraction = job.outcome.type === 'error' ? job.outcome.atFraction : 1;
    job.endsAt = at + job.durationMs * fraction;
    running.add(job);
    maxRunning = Math.max(maxRunning, running.size);
  }

  function nextToFinish(): SimJob | undefined {
    let next: SimJob | undefined;
    for (const job of running) {
      if (next === undefined || (job.endsAt ?? 0) < (next.endsAt ?? 0)) next = job;
    }
    return next;
  }

  function figuresFor(job: SimJob): QueueFigures {
    const index = queue.indexOf(job);
    return { queuePosition: index + 1, queueDepth: queue.length, runningJobs: running.size };
  }

  return {
    advance(now) {
      for (;;) {
        const next = nextToFinish();
        if (next === undefined || (next.endsAt ?? 0) > now) return;
        running.delete(next);
        next.state = next.outcome.type === 'complete' ? 'complete' : 'error';
        options.onFinish(next);
        while (running.size < options.concurrencyLimit && queue.length > 0) {
          const waiting = queue.shift();
          if (waiting !== undefined) start(waiting, next.endsAt ?? now);
        }
      }
    },
    add(job, now) {
      jobs.set(job.jobId, job);
      if (running.size < options.concurrencyLimit && queue.length === 0) start(job, now);
      else queue.push(job);
      maxOpen = Math.max(maxOpen, running.size + queue.length);
      return figuresFor(job);
    },
    get: (jobId) => jobs.get(jobId),
    all: () => [...jobs.values()],
    figuresFor,
    queueDepth: () => queue.length,
    runningCount: () => running.size,
    maxRunningAtOnce: () => maxRunning,
    maxOpenAtOnce: () => maxOpen,
  };
}

/** The `status` string the service reports for `job`. */
export function reportStatus(job: SimJob): string {
  if (job.state === 'queued') return 'WaitingForAgent';
  if (job.state === 'running') return job.runningStatus ?? 'Processing';
  return job.state;
}

/** Progress 0–99 of a running job at `now`. */
export function computeProgress(job: SimJob, now: number): number {
  if (job.startedAt === undefined || job.durationMs <= 0) return 0;
  return Math.max(0, Math.min(99, Math.floor(((now - job.startedAt) / job.durationMs) * 100)));
}

/** The polled job record (api-notes) of `job` at `now`; result links are under `resultBase`. */
export function describeJob(job: SimJob, now: number, resultBase: string): Record<string, unknown> {
  const record: Record<string, unknown> = {
    jobId: job.jobId,
    status: reportStatus(job),
    resultUrl: null,
    resultImages: null,
    creditCost: job.creditCost,
    chargeSource: job.chargeSource,
    quotaRemaining: job.quotaRemaining,
    failureKind: null,
    error: null,
  };
  if (job.state === 'running') {
    record.progress = computeProgress(job, now);
  } else if (job.state === 'complete' && job.outcome.type === 'complete') {
    const urls = Array.from(
      { length: job.outcome.imageCount },
      (_, i) => `${resultBase}/${job.jobId}/${i + 1}.${job.resultExt}`,
    );
    record.resultUrl = urls[0];
    record.resultImages = urls;
  } else if (job.state === 'error' && job.outcome.type === 'error') {
    record.failureKind = job.outcome.failureKind;
    record.error = job.outcome.message;
  }
  return record;
}
