import { createHash } from 'node:crypto';
import { ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { StatusView } from '../../src/state/status-view.js';
import { pgAvailable, usePgCluster } from '../pg-cluster.js';
import { useS3Server } from '../s3-server.js';
import { simulatorEnv, writeApplyWorkspace } from './apply-fixtures.js';
import { runCli, startCli } from './run-cli.js';

/** An object the test keeps under the run's prefix (see `keepFolder`). */
const KEEP = '.s3rver-keeps-this-folder';

/**
 * Three machines at once on one run in PostgreSQL, all with `--output s3://results/shared` (#30.3):
 * they write to the one bucket prefix, so every result is there exactly once, with the bytes the
 * service serves, and `status` on any machine finds them all.
 */
const TIME_SCALE = 0.009;
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

describe.runIf(pgAvailable())('three machines on one run write to one bucket prefix', () => {
  const cluster = usePgCluster();
  const s3 = useS3Server();

  async function keepFolder(key: string): Promise<void> {
    const client = new S3Client({
      forcePathStyle: true,
      endpoint: s3().endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    try {
      await client.send(new PutObjectCommand({ Bucket: s3().bucket, Key: key, Body: 'kept\n' }));
    } finally {
      client.destroy();
    }
  }

  it('every result exactly once in the bucket, bytes equal the service', { timeout: 180_000 }, async () => {
    const simulator = await startSimulator({
      timeScale: TIME_SCALE,
      seed: 77,
      idempotencyWindowMs: Math.ceil(300_000 / TIME_SCALE),
      account: { subscriptionImageQuota: 0 },
    });
    try {
      const url = await cluster().createDatabase();
      const output = `s3://${s3().bucket}/shared`;
      // s3rver removes a folder left empty by a DELETE while a PUT into it may be opening its file, and
      // that PUT's stream has no error listener: three machines' write probes (PUT, DELETE) under
      // `shared/` at once crashed this test process with ENOENT. A kept object holds the folder; a real
      // store has no folders to remove.
      await keepFolder(`shared/${KEEP}`);
      const machines = await Promise.all(
        ['m1', 'm2', 'm3'].map(async (name) => ({
          name,
          ...(await writeApplyWorkspace(`pgs3-${name}`, {
            name: 'shared',
            subjects: ['fox', 'owl', 'heron'],
            styles: ['ink', 'oil'],
          })),
        })),
      );
      const envOf = (machine: (typeof machines)[number]) => ({
        ...simulatorEnv(simulator),
        RUNNER_STATE_URL: url,
        RUNNER_MACHINE: machine.name,
        ...s3().env,
        AWS_ENDPOINT_URL_S3: s3().endpoint,
        AWS_CONFIG_FILE: join(machine.dir, 'aws-config'),
        AWS_SHARED_CREDENTIALS_FILE: join(machine.dir, 'aws-credentials'),
        AWS_EC2_METADATA_DISABLED: 'true',
      });
      const results = await Promise.all(
        machines.map(
          (machine) =>
            startCli([...machine.apply, '--output', output], { env: envOf(machine), timeoutMs: 120_000 })
              .result,
        ),
      );
      for (const result of results) {
        expect(result.code, result.stderr).toBe(0);
        expect(result.stderr).not.toMatch(/end of support|NodeDeprecation/i);
      }
      const jobIds = machines[0]?.jobIds ?? [];
      expect(simulator.stats().jobsCreated).toBe(jobIds.length);

      const last = machines[2]!;
      const status = await runCli(['status', last.file, '--json'], { env: envOf(last) });
      expect(status.code, status.stderr).toBe(0);
      const view = JSON.parse(status.stdout) as StatusView & { missingHere?: number };
      expect(view.missingHere ?? 0).toBe(0);
      const recorded = view.jobs.flatMap((job) => job.files);
      expect(recorded.length).toBeGreaterThanOrEqual(jobIds.length);

      const client = new S3Client({
        forcePathStyle: true,
        endpoint: s3().endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      });
      try {
        const listed = await client.send(
          new ListObjectsV2Command({ Bucket: s3().bucket, Prefix: 'shared/' }),
        );
        const media = (listed.Contents ?? [])
          .map((object) => object.Key ?? '')
          .filter((key) => !/\/(report\.html|results\.(json|csv)|\.runner-run\.json)$/.test(key))
          .filter((key) => !key.startsWith('shared/thumbnails/') && key !== `shared/${KEEP}`)
          .sort();
        // Exactly once: one object per recorded result, no other (besides the page's thumbnails).
        expect(media).toEqual(recorded.map((file) => `shared/${file.file}`).sort());
      } finally {
        client.destroy();
      }
      for (const file of recorded) {
        const stored = await s3().storedBytes(`shared/${file.file}`);
        expect(stored && sha256(stored), file.file).toBe(file.sha256);
      }
      // The bytes the service serves at each result's link (read by the test, not by the runner).
      const index = JSON.parse((await s3().storedBytes('shared/results.json'))?.toString('utf8') ?? '{}') as {
        results?: { resultUrl?: string; sha256?: string }[];
      };
      const rows = index.results ?? [];
      expect(rows).toHaveLength(recorded.length);
      for (const row of rows) {
        const served = new Uint8Array(await (await fetch(row.resultUrl ?? '')).arrayBuffer());
        expect(row.sha256).toBe(sha256(served));
      }
      expect(rows.map((row) => row.sha256).sort()).toEqual(recorded.map((file) => file.sha256).sort());
    } finally {
      await simulator.close();
    }
  });
});
