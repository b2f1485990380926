import { createHash } from 'node:crypto';
import { formatPlanIdentity, type PlanSettings } from '../state/index.js';
import type { Plan } from './types.js';

/**
 * What makes two applies of one run the same plan: its pipeline and, in order, every job's id and
 * payload hash (what a create sends). Machines that apply a run together must agree on it (issue
 * 17.4): another manifest, other vars, other targeting or another catalog default gives another one.
 */
export function planIdentity(
  plan: Pick<Plan, 'pipeline' | 'jobs'>,
  settings: PlanSettings = { maxCredits: undefined, replace: [], retryFailed: false, resendUncertain: false },
): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify(plan.pipeline));
  for (const job of plan.jobs) hash.update(`\n${JSON.stringify(job.id)} ${job.payloadHash}`);
  // The cap, replacements and re-sends too (#31.8): a leg that differs in them is refused, named.
  return formatPlanIdentity(hash.digest('hex'), settings);
}
