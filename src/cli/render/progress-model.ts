import type { ExecutionEvent } from '../../execute/events.js';

export type LiveState = 'pending' | 'queued' | 'running' | 'done' | 'failed' | 'deferred' | 'uncertain';

export interface ProgressSnapshot {
  counts: Record<LiveState, number>;
  total: number;
  creditsSpent: number;
  /** Jobs open now, with their progress when the service reports it. */
  open: { id: string; state: 'queued' | 'running'; progress?: number }[];
  /** Milliseconds until every job is expected to be done, once one has finished in this run. */
  etaMs?: number;
}

/**
 * Follows executor events into counts per state, credits spent and an ETA: the pure half of the
 * progress view. The ETA is the remaining jobs in waves of `concurrency`, each as long as the jobs
 * finished so far took on average.
 */
export class ProgressModel {
  private readonly states = new Map<string, LiveState>();
  private readonly progress = new Map<string, number>();
  private readonly createdAt = new Map<string, number>();
  private readonly durations: number[] = [];
  /** Credits of each open attempt, given back when it fails (failed jobs are not charged, api-notes). */
  private readonly openCosts = new Map<string, number>();
  private creditsSpent = 0;

  constructor(
    jobIds: readonly string[],
    private readonly concurrency: number,
    private readonly now: () => number,
  ) {
    for (const id of jobIds) this.states.set(id, 'pending');
  }

  apply(event: ExecutionEvent): void {
    switch (event.type) {
      case 'job-skipped':
        this.states.set(event.id, event.reason === 'done' ? 'done' : event.reason);
        break;
      case 'job-created':
        this.states.set(event.id, (event.queuePosition ?? 0) > 0 ? 'queued' : 'running');
        this.createdAt.set(event.id, this.now());
        if (!event.resent) {
          this.creditsSpent += event.creditCost ?? 0;
          this.openCosts.set(event.id, event.creditCost ?? 0);
        }
        break;
      case 'job-status':
        if (event.phase === 'queued' || event.phase === 'running') this.states.set(event.id, event.phase);
        if (event.progress !== undefined) this.progress.set(event.id, event.progress);
        break;
      case 'job-completed': {
        this.states.set(event.id, 'done');
        const started = this.createdAt.get(event.id);
        if (started !== undefined) this.durations.push(this.now() - started);
        break;
      }
      case 'job-failed':
        this.states.set(event.id, 'failed');
        this.giveBack(event.id);
        break;
      case 'job-retry':
        this.states.set(event.id, 'pending');
        this.progress.delete(event.id);
        this.giveBack(event.id);
        break;
      case 'job-deferred':
        this.states.set(event.id, 'deferred');
        this.giveBack(event.id);
        break;
      case 'job-uncertain':
        if (event.action === 'skipped') this.states.set(event.id, 'uncertain');
        break;
      case 'job-still-running':
        this.states.set(event.id, 'running');
        break;
      default:
        break;
    }
  }

  private giveBack(id: string): void {
    this.creditsSpent -= this.openCosts.get(id) ?? 0;
    this.openCosts.delete(id);
  }

  snapshot(): ProgressSnapshot {
    const counts: Record<LiveState, number> = {
      pending: 0,
      queued: 0,
      running: 0,
      done: 0,
      failed: 0,
      deferred: 0,
      uncertain: 0,
    };
    const open: ProgressSnapshot['open'] = [];
    for (const [id, state] of this.states) {
      counts[state] += 1;
      if (state === 'queued' || state === 'running') {
        const progress = this.progress.get(id);
        open.push(progress === undefined ? { id, state } : { id, state, progress });
      }
    }
    const snapshot: ProgressSnapshot = {
      counts,
      total: this.states.size,
      creditsSpent: this.creditsSpent,
      open,
    };
    if (this.durations.length > 0) {
      const average = this.durations.reduce((sum, value) => sum + value, 0) / this.durations.length;
      const remaining = counts.pending + counts.queued + counts.running;
      snapshot.etaMs = Math.ceil(remaining / this.concurrency) * average;
    }
    return snapshot;
  }
}

/** `1h02m`, `3m05s`, `12s`. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return `${h}h${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m${String(s).padStart(2, '0')}s`;
  return `${s}s`;
}
