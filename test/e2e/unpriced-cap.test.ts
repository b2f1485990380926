import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import { makeWorkDir, simulatorEnv } from './apply-fixtures.js';
import { startCli, type CliResult } from './run-cli.js';
import { stateBackends, useStateBackend } from './state-backends.js';

const TIME_SCALE = 0.005;
const FAST = ['--yes', '--poll-interval', '15-25', '--first-poll', '30'];
/** What the service charges a stock video of duration 1 (stock-narrated: 8 × duration). */
const VIDEO_COST = 8;
const CAP = 50;

/** `count` stock videos, 8 credits each, which the catalog below prices at 0. */
function stockManifest(count: number): string {
  const ids = Array.from({ length: count }, (_, index) => `s${index}`).join(', ');
  return `version: 1
name: unpriced
jobs:
  - id: 'stock-{{ n }}'
    kind: stock-video
    model: stock-narrated
    matrix:
      n: [${ids}]
    prompt: Coffee beans and sunrise streets, take {{ n }}
    params:
      script: 'Three new roasts this week.'
      duration: 1
`;
}

/**
 * Issue #31.4: create answers carry only `jobId` (api-notes) and the catalog prices an 8-credit
 * video at 0, so the charge arrives only in the polled job. Before: `--max-credits 50` ended at 64–80
 * credits on 1 machine and 192–216 on 3. A cap may be crossed by one job at most, on any number of
 * machines sharing the run (PostgreSQL), and on the folder.
 */
describe.each(stateBackends())('a cap with unpriced jobs whose creates answer only jobId (%s)', (backend) => {
  const state = useStateBackend(backend, { leaseTtlMs: 5_000 });
  // With full create answers, 4 machines reached 48–52 for a cap of 42: each sent its own first job
  // of the unpriced model, and took the cap's last credits together with the others.
  const cases: [number, 'job-id-only' | 'full'][] =
    backend === 'postgres'
      ? [
          [1, 'job-id-only'],
          [3, 'job-id-only'],
          [3, 'full'],
        ]
      : [[1, 'job-id-only']];

  it.each(cases)(
    '%i machine(s), create answers %s: the cap is crossed by one job at most, and each job is created once',
    async (machines, creation) => {
      const sim = await startSimulator({
        timeScale: TIME_SCALE,
        seed: 31 + machines,
        idempotencyWindowMs: Math.ceil(300_000 / TIME_SCALE),
        dialect: { creation, catalogCosts: { 'stock-narrated': 0 } },
      });
      const root = await makeWorkDir('unpriced');
      try {
        const place = await state.place(join(root, 'state'), 'unpriced');
        const env = { ...simulatorEnv(sim), ...place.env };
        const runs: Promise<CliResult>[] = [];
        for (let index = 0; index < machines; index++) {
          const dir = join(root, `m${index}`);
          const file = join(root, `pipeline-${index}.yaml`);
          await writeFile(file, stockManifest(12));
          const args = ['apply', file, ...place.args, '--output', dir, ...FAST, '--max-credits', String(CAP)];
          runs.push(
            startCli(args, { env: { ...env, RUNNER_MACHINE: `m${index}` }, timeoutMs: 90_000 }).result,
          );
        }
        const results = await Promise.all(runs);
        // Each stops at the cap: exit 3, the spending it counted at most the cap plus one job.
        for (const result of results) {
          expect(result.code, result.stderr).toBe(3);
          expect(result.stderr).toMatch(/past the cap of 50 credits/);
        }
        const stats = sim.stats();
        expect(stats.creditsCharged, JSON.stringify(stats.jobs.length)).toBeLessThanOrEqual(CAP + VIDEO_COST);
        expect(stats.creditsCharged).toBeGreaterThanOrEqual(CAP - VIDEO_COST);
        // Every job the service made is on record, once, for a job of its own.
        const created = (await place.records()).filter((record) => record.type === 'created');
        expect(created.map((record) => record.jobId).sort()).toEqual(
          stats.jobs.map((job) => job.jobId).sort(),
        );
        expect(new Set(created.map((record) => record.id)).size).toBe(stats.jobsCreated);
      } finally {
        await sim.close();
        await rm(root, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
