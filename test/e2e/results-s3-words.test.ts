import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import { useS3Server } from '../s3-server.js';
import { makeWorkDir, simulatorEnv, writeImageMatrixManifest } from './apply-fixtures.js';
import { runCli } from './run-cli.js';

/**
 * A bucket output is named as one (#30.3): `runner status` of a run whose result is gone from its
 * bucket says "Output: s3://…" and "not in this bucket", never "folder".
 */
const s3 = useS3Server();

describe('messages about a bucket output', () => {
  let simulator: Simulator | undefined;
  afterEach(async () => {
    await simulator?.close();
    simulator = undefined;
  });

  it(
    'status names the bucket, not a folder, when a result is missing from it',
    { timeout: 120_000 },
    async () => {
      simulator = await startSimulator({ timeScale: 0.005 });
      const dir = await makeWorkDir('results-s3-words');
      const env = { ...simulatorEnv(simulator), ...s3().cliEnv(dir) };
      const { file } = await writeImageMatrixManifest(dir, {
        name: 'words',
        subjects: ['fox'],
        styles: ['ink'],
      });
      const output = `s3://${s3().bucket}/words`;
      const fast = ['--poll-interval', '15-25', '--first-poll', '50', '--yes'];
      const applied = await runCli(['apply', file, '--run', 'n1', '--output', output, ...fast], { env });
      expect(applied.code, applied.stderr).toBe(0);

      await s3().deleteObject('words/img-fox-ink.png');
      const status = await runCli(['status', file, '--run', 'n1'], { env });
      expect(status.code, status.stderr).toBe(1);
      expect(status.stdout).toContain(`Output: ${output}`);
      expect(status.stdout).toContain('1 result(s) recorded as saved are not in this bucket');
      expect(status.stdout).not.toMatch(/folder/i);
    },
  );
});
