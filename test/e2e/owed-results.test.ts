import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import type { StatusView } from '../../src/state/status-view.js';
import { FAST_YES, makeWorkDir, simulatorEnv, writeImageMatrixManifest } from './apply-fixtures.js';
import { runCli } from './run-cli.js';

/**
 * Results a run paid for but could not save (#24.3, #20.8) and result links on the API's origin
 * (#24.7), through the built CLI against the simulator, counting creates on its side.
 */

const TIME_SCALE = 0.005;

let simulator: Simulator | undefined;
let dir: string | undefined;
afterEach(async () => {
  await simulator?.close();
  simulator = undefined;
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

async function setup(name: string) {
  simulator = await startSimulator({ timeScale: TIME_SCALE, idempotencyWindowMs: 300_000 / TIME_SCALE });
  dir = await makeWorkDir(name);
  const { file } = await writeImageMatrixManifest(dir, {
    name,
    subjects: ['fox', 'owl'],
    styles: ['ink'],
  });
  const where = ['--state-dir', join(dir, 'state'), '--output', join(dir, 'out')];
  return { sim: simulator, file, where, out: join(dir, 'out'), env: simulatorEnv(simulator) };
}

async function listFiles(folder: string): Promise<string[]> {
  const names = await readdir(folder, { recursive: true }).catch(() => [] as string[]);
  return names.filter((name) => /\.(png|jpg|tmp)$|\.part-/.test(name)).sort();
}

describe('results paid for but not saved', () => {
  it('are not "done": status shows them owed (exit 1), and apply --download-only fetches them creating nothing', async () => {
    const { sim, file, where, out, env } = await setup('owed');
    // Every result link answers 403 (an expired or refused link): the jobs are paid, nothing is saved.
    sim.setHostile({ resultStatus: 403 });
    const first = await runCli(['apply', file, ...where, ...FAST_YES], { env });
    expect(first.code).toBe(1);
    expect(first.stdout).toContain('0 of 2 jobs done.');
    expect(first.stdout).toContain('paid but results not saved 2');
    expect(first.stdout).not.toContain('2 of 2 jobs done');
    expect(first.stdout).toMatch(
      /--download-only` fetches the results not saved \(it creates and pays nothing\)/,
    );
    expect(sim.stats().jobsCreated).toBe(2);
    expect(await listFiles(out)).toEqual([]);

    const owed = await runCli(['status', file, ...where.slice(0, 2), '--json'], { env });
    expect(owed.code).toBe(1);
    const view = JSON.parse(owed.stdout) as StatusView;
    expect(view.totals).toMatchObject({ done: 0, downloading: 2 });
    expect(view.jobs.map((job) => [job.status, job.resultsOwed])).toEqual([
      ['downloading', 1],
      ['downloading', 1],
    ]);
    expect(view.jobs[0]?.resultsExpireAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    const text = await runCli(['status', file, ...where.slice(0, 2)], { env });
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('2 jobs: downloading 2.');
    expect(text.stdout).toMatch(/\(downloading\): paid, 1 result\(s\) not saved; the links expire /);

    sim.setHostile({});
    const fetched = await runCli(['apply', file, ...where, '--download-only', '--yes'], { env });
    expect(fetched.stderr).not.toMatch(/jobs done in earlier runs/);
    expect(fetched.stderr).toMatch(
      /done in attempt 1 \(job_[^)]+\); 1 result\(s\) not saved yet, downloading/,
    );
    expect(fetched.code).toBe(0);
    expect(fetched.stdout).toContain('All 2 jobs done.');
    expect(sim.stats().jobsCreated).toBe(2);
    expect(sim.stats().requests['POST /agents/jobs/create']).toBe(2);
    // The results (their thumbnails and the grid image go to thumbnails/).
    expect(
      (await listFiles(out)).filter((name) => name.endsWith('.png') && !name.startsWith('thumbnails/')),
    ).toHaveLength(2);
    // The simulator serves results on the API's own origin: still, no download carried the key (#24.7).
    expect(sim.stats().resultRequestsWithKey).toBe(0);

    const settled = await runCli(['status', file, ...where.slice(0, 2)], { env });
    expect(settled.code).toBe(0);
    expect(settled.stdout).toContain('2 jobs: done 2.');
  }, 60_000);

  it('--download-only refuses flags that would create', async () => {
    const { sim, file, where, env } = await setup('refuse');
    const result = await runCli(['apply', file, ...where, '--download-only', '--retry-failed', '--yes'], {
      env,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      '--download-only creates nothing, so it cannot be combined with --retry-failed',
    );
    expect(sim.stats().jobsCreated).toBe(0);
  });

  it('--download-only on a fresh run creates nothing and leaves every job pending', async () => {
    const { sim, file, where, env } = await setup('fresh');
    const result = await runCli(['apply', file, ...where, '--download-only', '--yes'], { env });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('0 of 2 jobs done.');
    expect(result.stdout).toContain('pending 2');
    expect(sim.stats().jobsCreated).toBe(0);
  });

  it('a result link on the API origin never gets the key, and nothing lands in the output folder (#24.7)', async () => {
    const { sim, file, where, out, env } = await setup('api-origin');
    sim.setHostile({ resultsOnApi: 1 });
    const result = await runCli(['apply', file, ...where, ...FAST_YES], { env });
    expect(result.code).toBe(1);
    expect(sim.stats().resultRequestsWithKey).toBe(0);
    expect(sim.stats().requests['GET /account/balance']).toBeGreaterThanOrEqual(2);
    expect(await listFiles(out)).toEqual([]);
    expect(result.stdout).toContain('0 of 2 jobs done.');
    expect(`${result.stdout}${result.stderr}`).not.toContain(sim.apiKey);
  }, 60_000);
});
