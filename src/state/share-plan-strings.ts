import type { PlannedJob } from '../manifest/planned-job.js';
import type { JobState } from './job-state.js';

/**
 * Makes the replayed state use the plan's strings where they hold the same text: a resumed run holds
 * each job's payload hash, prompt and model twice, once in its plan and once in its state (the hash
 * of each attempt, the payload its intent journaled), and JSON parsing makes a string of each. One
 * string each instead of two saved ~22 MB of a resumed 100,000-job apply's live heap. Values do not
 * change, only which equal string a field points to; map keys are left as they are.
 */
export function sharePlanStrings(state: ReadonlyMap<string, JobState>, jobs: readonly PlannedJob[]): void {
  for (const job of jobs) {
    const known = state.get(job.id);
    if (known === undefined) continue;
    if (known.payloadHash === job.payloadHash) known.payloadHash = job.payloadHash;
    // A job whose attempts are still in the snapshot holds none of these strings.
    if (known.storedSummary?.() !== undefined) continue;
    for (const attempt of known.attempts) {
      if (attempt.payloadHash === job.payloadHash) attempt.payloadHash = job.payloadHash;
      const payload = attempt.payload;
      if (payload === undefined) continue;
      if (payload.prompt === job.prompt && job.prompt !== undefined) payload.prompt = job.prompt;
      if (payload.model === job.model) payload.model = job.model;
      if (payload.kind === job.kind) payload.kind = job.kind;
    }
  }
}
