import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createServiceClient } from '../../src/service/client.js';
import type { ServiceClient } from '../../src/service/service-client.js';
import type { JobRecord } from '../../src/service/types.js';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import { downloadToPath } from '../download-to-path.js';
import { getJobKind } from '../../src/kinds/index.js';

const API_KEY = 'sk-ECHOCHECK-int-3b9e1f07a4c2d586';
const LEGACY_KEY = 'legacy-ECHOCHECK-int-0e7d5a93c1f4b2';

/** Issue #24.6: a service that echoes the keys, through the real client over HTTP on 127.0.0.1. */
describe('the client against a service that echoes the keys', () => {
  const opened: (Simulator | ServiceClient)[] = [];
  let dir: string | undefined;
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((item) => item.close()));
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  async function setup() {
    const sim = await startSimulator({
      timeScale: 0.002,
      apiKey: API_KEY,
      legacyApiKey: LEGACY_KEY,
      echoApiKey: true,
    });
    opened.push(sim);
    dir = await mkdtemp(join(tmpdir(), 'runner-echo-'));
    const connect = () => {
      const client = createServiceClient({ baseUrl: sim.baseUrl, apiKey: API_KEY });
      opened.push(client);
      return client;
    };
    return { sim, connect, dir };
  }

  async function waitForEnd(client: ServiceClient, jobId: string): Promise<JobRecord> {
    for (;;) {
      const record = await client.getJob(jobId);
      if (record.phase === 'complete' || record.phase === 'failed') return record;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  const prompt = 'A detailed studio photograph of a coffee cup on a marble counter';

  it('returns result URLs redacted and still downloads them, in this process and after a restart', async () => {
    const { connect, dir: folder } = await setup();
    const first = connect();
    const created = await first.createJob({
      endpoint: getJobKind('image'),
      body: { model: 'chatgpt-image-sangtao', prompt },
    });
    const record = await waitForEnd(first, created.jobId);
    const [url = ''] = record.resultUrls;
    expect(url).toContain('/__results/k/[REDACTED]/');
    expect(JSON.stringify(record)).not.toContain('ECHOCHECK');
    const here = await downloadToPath(first, url, join(folder, 'here.png'));

    // A later process holds only the redacted URL (from the journal): it polls the job again.
    const later = connect();
    const without = await downloadToPath(later, url, join(folder, 'lost.png')).catch(
      (error: unknown) => error,
    );
    expect(String((without as Error).message)).toContain('held the API key');
    expect(String((without as Error).message)).not.toContain('ECHOCHECK');
    const again = await downloadToPath(later, url, join(folder, 'again.png'), {
      jobId: created.jobId,
      resultIndex: 0,
    });
    expect(again).toEqual(here);
    expect(await readFile(join(folder, 'again.png'))).toEqual(await readFile(join(folder, 'here.png')));
  });

  it('takes both keys out of error texts and failed jobs, the legacy one once the balance was read', async () => {
    const { connect } = await setup();
    const client = connect();
    const balance = await client.getBalance();
    expect(JSON.stringify(balance)).not.toContain('ECHOCHECK');
    const failing = await client.createJob({
      endpoint: getJobKind('image'),
      body: { model: 'chatgpt-image-sangtao', prompt: `${prompt} [[fail:CONTENT_REJECTED]]` },
    });
    const failed = await waitForEnd(client, failing.jobId);
    expect(failed.error).toContain('[REDACTED]');
    expect(failed.error).not.toContain('ECHOCHECK');
    const missing = await client.getJob('job_nope').catch((error: unknown) => error as Error);
    expect(missing).toBeInstanceOf(Error);
    expect((missing as Error).message).toContain('[REDACTED]');
    expect(JSON.stringify({ ...(missing as object), message: (missing as Error).message })).not.toContain(
      'ECHOCHECK',
    );
  });

  it('knows the legacy key before the first text of a connection that never asked for the balance', async () => {
    const { connect } = await setup();
    const client = connect();
    const missing = await client.getJob('job_nope').catch((error: unknown) => error as Error);
    expect(missing).toBeInstanceOf(Error);
    expect((missing as Error).message).toContain('[REDACTED]');
    expect((missing as Error).message).not.toContain('ECHOCHECK');
  });
});
