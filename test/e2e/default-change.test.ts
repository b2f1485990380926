import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import { FAST_YES, IMAGE_MODEL, makeWorkDir, readStatus, simulatorEnv } from './apply-fixtures.js';
import { runCli } from './run-cli.js';
import { runCliKilledWhen } from './run-cli-killable.js';

/** Whether the run's journal holds the job id of a create (the job is open from then on). */
function journaledCreate(stateDir: string): boolean {
  try {
    // `--state-dir DIR` keeps each run in DIR/<pipeline>/<run>/ (#7.1).
    const journal = join(stateDir, 'default-change', 'default', 'journal.jsonl');
    return readFileSync(journal, 'utf8').includes('"type":"created"');
  } catch {
    return false;
  }
}

/**
 * Issue #11.2: the service changes a model's default between two applies. The job's identity comes
 * from what the manifest says, so the second apply follows the open paid job and creates nothing.
 */
describe('a catalog default that changes while a paid job is open (built binary)', () => {
  let simulator: Simulator | undefined;
  afterEach(async () => {
    await simulator?.close();
    simulator = undefined;
  });

  it('follows the open job to its end and pays nothing again', async () => {
    // 200 s of simulated work at 0.005: the job stays open for about a second after its create.
    const sim = (simulator = await startSimulator({ timeScale: 0.005, jobDurationMs: { image: 200_000 } }));
    const dir = await makeWorkDir('default-change');
    const file = join(dir, 'pipeline.yaml');
    await writeFile(
      file,
      `version: 1
name: default-change
jobs:
  - id: poster
    kind: image
    model: ${IMAGE_MODEL}
    prompt: A watercolor poster of a lighthouse on a rocky coast at dusk
`,
    );
    const env = simulatorEnv(sim);
    const stateDir = join(dir, 'state');
    const apply = ['apply', file, '--state-dir', stateDir, ...FAST_YES];

    const killed = await runCliKilledWhen(apply, () => journaledCreate(stateDir), { env });
    expect(killed.killed).toBe(true);
    expect(sim.stats().jobsCreated).toBe(1);
    expect(sim.stats().jobs[0]?.status).not.toMatch(/complete|error/i);

    sim.setModelDefault(IMAGE_MODEL, 'resolution', '2K');
    const again = await runCli(apply, { env });
    expect(again.stderr).not.toMatch(/changed/);
    expect(again.code).toBe(0);
    expect(sim.stats().jobsCreated).toBe(1);
    expect(sim.stats().idempotentReplays).toBe(0);
    const status = await readStatus(file, stateDir, env);
    expect(status.jobs).toEqual([
      expect.objectContaining({
        id: 'poster',
        status: 'done',
        attempts: 1,
        jobId: sim.stats().jobs[0]?.jobId,
      }),
    ]);
  });
});
