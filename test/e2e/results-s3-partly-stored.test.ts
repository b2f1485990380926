import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ResultsIndex } from '../../src/report/results-index.js';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import { startFaultProxy } from '../s3-fault-proxy.js';
import { useS3Server } from '../s3-server.js';
import { IMAGE_MODEL, makeWorkDir, simulatorEnv } from './apply-fixtures.js';
import { runCli } from './run-cli.js';

/**
 * A job of two results whose second cannot be put in the bucket ends "downloading". The first is in
 * the bucket as recorded: the run's index links it and does not call it missing (it did: the check
 * compared the bucket's keys with staging paths, so every stored result of such a job was "missing",
 * with the second's error, which would send a person to fetch what is already there).
 */
const s3 = useS3Server();
const FAST = ['--poll-interval', '15-25', '--first-poll', '50', '--yes'];

describe("apply --output s3://… with one of a job's two results not stored", () => {
  let simulator: Simulator | undefined;
  afterEach(async () => {
    await simulator?.close();
    simulator = undefined;
  });

  it('names only the result the bucket lacks as missing', { timeout: 120_000 }, async () => {
    simulator = await startSimulator({ timeScale: 0.005 });
    const dir = await makeWorkDir('results-s3-partly-stored');
    const file = join(dir, 'pair.yaml');
    await writeManifest(file);
    // Every PUT of the job's second result is refused by the store; the rest passes.
    const proxy = await startFaultProxy(s3().endpoint, (request) =>
      request.method === 'PUT' && /\/pair\/cup[^/]*2\.png/.test(request.url ?? '')
        ? { status: 500, code: 'InternalError' }
        : 'pass',
    );
    try {
      const env = { ...simulatorEnv(simulator), ...s3().cliEnv(dir), AWS_ENDPOINT_URL_S3: proxy.endpoint };
      const applied = await runCli(
        ['apply', file, '--run', 'n1', '--output', `s3://${s3().bucket}/pair`, ...FAST],
        {
          env,
        },
      );
      expect(applied.code, applied.stderr).toBe(1);
      expect(simulator.stats().jobsCreated).toBe(1);
      const stored = (await s3().listKeys('pair')).filter((key) => key.endsWith('.png'));
      expect(stored).toHaveLength(1);

      const index = JSON.parse((await s3().readObject('pair/results.json')).toString('utf8')) as ResultsIndex;
      const rows = index.results.filter((row) => row.id === 'cup');
      expect(rows).toHaveLength(2);
      const [kept, lost] = [...rows].sort((a, b) => (a.fileIndex ?? 0) - (b.fileIndex ?? 0));
      // The first is in the bucket as recorded: linked, not missing. The second was never stored, so
      // it has no file; the job's status says it is still to download.
      expect(`pair/${kept?.file ?? ''}`).toBe(stored[0]);
      expect(kept?.missing).toBeUndefined();
      expect(lost?.file).toBeUndefined();
      expect(lost?.status).toBe('downloading');
    } finally {
      await proxy.close();
    }
  });
});

async function writeManifest(file: string): Promise<void> {
  await writeFile(
    file,
    [
      'version: 1',
      'name: pair',
      'defaults:',
      '  kind: image',
      `  model: ${IMAGE_MODEL}`,
      '  params: { format: png }',
      'jobs:',
      '  - id: cup',
      '    prompt: Two views of a ceramic espresso cup on a marble counter by a sunny window [[two-images]]',
      '',
    ].join('\n'),
  );
}
