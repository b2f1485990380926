import { afterEach, describe, expect, it } from 'vitest';
import { createServiceClient } from '../../src/service/client.js';
import type { ServiceClient } from '../../src/service/service-client.js';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator, SimulatorOptions } from '../../src/simulator/types.js';
import { getJobKind } from '../../src/kinds/index.js';

/** Issue #11.9: the optional recent-jobs listing, over real HTTP on 127.0.0.1. */
describe('findRecentJobs against the simulator', () => {
  const opened: (Simulator | ServiceClient)[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((item) => item.close()));
  });

  async function connect(jobListing: boolean, clockOffsetMs = 0, dialect: SimulatorOptions['dialect'] = {}) {
    const sim = await startSimulator({ timeScale: 0.01, jobListing, clockOffsetMs, dialect });
    const client = createServiceClient({ baseUrl: sim.baseUrl, apiKey: sim.apiKey });
    opened.push(client, sim);
    return { sim, client };
  }

  it('is reported as unavailable (undefined) when the service answers 404, as the spec allows', async () => {
    const { sim, client } = await connect(false);
    expect(await client.findRecentJobs?.({ since: Date.now() - 60_000 })).toBeUndefined();
    expect(sim.stats().requests['GET /jobs']).toBe(1);
  });

  it('lists jobs created since the given time, with model and prompt', async () => {
    const { client } = await connect(true);
    const before = Date.now() - 1000;
    const created = await client.createJob({
      endpoint: getJobKind('voiceover-video'),
      body: { model: 'voiceover-standard', prompt: 'A teaser about autumn', script: 'Autumn is here.' },
    });
    const listed = await client.findRecentJobs?.({ since: before });
    expect(listed).toEqual([
      expect.objectContaining({
        jobId: created.jobId,
        model: 'voiceover-standard',
        prompt: 'A teaser about autumn',
      }),
    ]);
    expect(await client.findRecentJobs?.({ since: Date.now() + 60_000 })).toEqual([]);
  });

  it('finds a job made while the service clock is 10 min behind, its time moved to ours by the Date header (#24.8)', async () => {
    const { client } = await connect(true, -600_000);
    const before = Date.now() - 1000;
    const created = await client.createJob({
      endpoint: getJobKind('voiceover-video'),
      body: { model: 'voiceover-standard', prompt: 'A teaser about autumn', script: 'Autumn is here.' },
    });
    const after = Date.now();
    const listed = await client.findRecentJobs?.({ since: before });
    expect(listed?.map((job) => job.jobId)).toEqual([created.jobId]);
    const createdAt = listed?.[0]?.createdAt ?? 0;
    // The Date header has whole seconds: the corrected time is good to about one.
    expect(createdAt).toBeGreaterThan(before - 2000);
    expect(createdAt).toBeLessThan(after + 2000);
    expect(listed?.[0]?.payload).toEqual({
      model: 'voiceover-standard',
      prompt: 'A teaser about autumn',
      script: 'Autumn is here.',
    });
    const offset = client.serviceClockOffsetMs?.() ?? 0;
    expect(Math.abs(offset + 600_000)).toBeLessThan(2000);
  });

  it('reads jobs the listing names `id` instead of `jobId` (#20.11)', async () => {
    const { client } = await connect(true, 0, { jobIdField: 'id' });
    const before = Date.now() - 1000;
    const created = await client.createJob({
      endpoint: getJobKind('voiceover-video'),
      body: { model: 'voiceover-standard', prompt: 'A teaser about autumn', script: 'Autumn is here.' },
    });
    expect((await client.findRecentJobs?.({ since: before }))?.map((job) => job.jobId)).toEqual([
      created.jobId,
    ]);
  });
});
