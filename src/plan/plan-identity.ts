import { createHash } from 'node:crypto';
import type { Plan } from './types.js';

/**
 * What makes two applies of one run the same plan: its pipeline and, in order, every job's id and
 * payload hash (what a create sends). Machines that apply a run together must agree on it (issue
 * 17.4): another manifest, other vars, other targeting or another catalog default gives another one.
 */
export function planIdentity(plan: Pick<Plan, 'pipeline' | 'jobs'>): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify(plan.pipeline));
  for (const job of plan.jobs) hash.update(`\n${JSON.stringify(job.id)} ${job.payloadHash}`);
  return hash.digest('hex');
}
