import { cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import type { StatusView } from '../../src/state/status-view.js';
import { FAST_YES, IMAGE_MODEL, makeWorkDir, simulatorEnv } from './apply-fixtures.js';
import { runCli } from './run-cli.js';
import { stateBackends, useStateBackend } from './state-backends.js';

const TIME_SCALE = 0.005;
/** The run id the action uses by default: the workflow run's id, which "Re-run jobs" keeps. */
const RUN_ID = '9876543210';

/** The checked-out repository: a manifest of three images and one the content policy rejects. */
async function checkout(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, 'nightly.yaml');
  const prompt = (subject: string) =>
    `A detailed ink picture of a ${subject} standing in a misty forest at dawn`;
  await writeFile(
    file,
    [
      'version: 1',
      'name: nightly',
      'defaults:',
      '  kind: image',
      `  model: ${IMAGE_MODEL}`,
      '  params: { format: png }',
      'jobs:',
      ...['fox', 'owl', 'heron'].flatMap((subject) => [
        `  - id: ${subject}`,
        `    prompt: ${prompt(subject)}`,
      ]),
      '  - id: rejected',
      `    prompt: ${prompt('wolf')} [[fail:CONTENT_REJECTED]]`,
      '',
    ].join('\n'),
  );
  return file;
}

/**
 * The sequence the action and the nightly workflow run (#17.1), through the built CLI: the state folder
 * is `.runner/` beside the manifest, restored before apply and saved after it whatever apply's exit
 * code. A night with one rejected job exits 1; its state is saved all the same, and the re-run of that
 * night on a fresh machine (a fresh checkout, the saved state restored) pays for none of its done jobs,
 * long after the service's idempotency window closed.
 */
describe.each(stateBackends())('a failed night re-run on a fresh machine, state in %s', (backend) => {
  const states = useStateBackend(backend);
  let simulator: Simulator | undefined;
  afterEach(async () => {
    await simulator?.close();
    simulator = undefined;
  });

  it('creates 0 of the jobs that were done', { timeout: 120_000 }, async () => {
    // No idempotency window to lean on: a job created again is a new job, paid again.
    simulator = await startSimulator({
      timeScale: TIME_SCALE,
      idempotencyWindowMs: 1,
      account: { subscriptionImageQuota: 0 },
    });
    const dir = await makeWorkDir('ci-cache');
    const cache = join(dir, 'actions-cache');
    // The folder: `.runner/` beside the manifest, saved to and restored from the cache. PostgreSQL: the
    // database, which outlives the machine with nothing to save.
    const place = backend === 'postgres' ? await states.place(join(dir, 'unused'), 'nightly') : undefined;
    const env = { ...simulatorEnv(simulator), ...place?.env };
    const saveCache = async (from: string, key: string) => {
      if (place === undefined) await cp(from, join(cache, key), { recursive: true });
    };
    const restoreCache = async (key: string, to: string) => {
      if (place === undefined) await cp(join(cache, key), to, { recursive: true });
    };
    const night = (file: string, attempt: number) =>
      runCli(['apply', file, '--run', RUN_ID, '--output', join(dir, `artifact-${attempt}`), ...FAST_YES], {
        env,
      });

    // Attempt 1: one job rejected, apply exits 1; the save step runs anyway (`if: always()`).
    const first = await checkout(join(dir, 'machine-1'));
    const one = await night(first, 1);
    expect(one.code, one.stderr).toBe(1);
    const createdOnNightOne = simulator.stats().jobsCreated;
    expect(createdOnNightOne).toBe(4);
    await saveCache(join(dir, 'machine-1', '.runner'), `runner-state-nightly.yaml-${RUN_ID}-1`);

    // Attempt 2 ("Re-run failed jobs"): another machine, a fresh checkout, the newest entry restored.
    const second = await checkout(join(dir, 'machine-2'));
    await restoreCache(`runner-state-nightly.yaml-${RUN_ID}-1`, join(dir, 'machine-2', '.runner'));
    const two = await night(second, 2);
    expect(simulator.stats().jobsCreated - createdOnNightOne).toBe(0);
    // The rejected job stays failed (re-sending it needs --retry-failed), so the night still exits 1.
    expect(two.code, two.stderr).toBe(1);
    const status = await runCli(['status', second, '--run', RUN_ID, '--json'], { env });
    expect((JSON.parse(status.stdout) as StatusView).totals).toMatchObject({ jobs: 4, done: 3, failed: 1 });

    // What the old action did: the failed night's state was never saved, so the re-run started from an
    // older one (here: none) and paid the three done jobs again. (Nothing to leave unsaved in a database.)
    if (backend === 'postgres') return;
    const unsaved = await checkout(join(dir, 'machine-3'));
    await night(unsaved, 3);
    expect(simulator.stats().jobsCreated - createdOnNightOne).toBeGreaterThanOrEqual(3);
  });
});
