import { describe, expect, it } from 'vitest';
import { RunnerError } from '../../src/errors.js';
import type { ServiceClient } from '../../src/service/service-client.js';
import { buildStatusView } from '../../src/state/status-view.js';
import { useExecutorHarness, videoJob } from './executor-harness.js';

const harness = useExecutorHarness('runner-adopted-cost-');

/** Issue #24.9: after adopting a lost create's job, the summary's spending agrees with `status`. */
describe('a lost video create, found and adopted', () => {
  it('counts the adopted job in the summary as status counts it', async () => {
    const { sim, client } = await harness.startService({ jobListing: true });
    let sends = 0;
    // The first create reaches the service, but its answer is lost (no key on video endpoints).
    const lossy: ServiceClient = {
      ...client,
      async createJob(request, options) {
        const creation = await client.createJob(request, options);
        if (++sends === 1) throw new RunnerError('NETWORK', `connection reset after ${creation.jobId}`);
        return creation;
      },
    };
    const job = videoJob('teaser', 'a short teaser about winter drinks');
    const first = await harness.run(lossy, [job]);
    expect(first.summary.counts.uncertain).toBe(1);

    const second = await harness.run(lossy, [job]);
    expect(second.summary.counts.done).toBe(1);
    expect(sim.stats().jobsCreated).toBe(1);
    const charged = sim.stats().creditsCharged;
    expect(charged).toBe(8);
    const status = buildStatusView(second.state);
    expect(status.totals.creditsSpent).toBe(charged);
    expect(second.summary.creditsSpent).toBe(charged);
    expect(second.summary.creditsSpentTotal).toBe(charged);
  });
});
