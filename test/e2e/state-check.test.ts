import { appendFile, readFile, readdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import { findRunDir, makeWorkDir, simulatorEnv, writeImageMatrixManifest } from './apply-fixtures.js';
import { runCli } from './run-cli.js';

let simulator: Simulator;
beforeAll(async () => {
  simulator = await startSimulator({ timeScale: 0.005, seed: 4, account: { subscriptionImageQuota: 0 } });
});
afterAll(async () => {
  await simulator.close();
});

describe('a forged journal line (#24.4)', () => {
  it('stops apply before any create, is named by `runner state check`, and `--repair` cuts it', async () => {
    const dir = await makeWorkDir('state-check');
    const { file, jobIds } = await writeImageMatrixManifest(dir, {
      name: 'forged',
      subjects: ['fox', 'owl'],
      styles: ['watercolor', 'pencil'],
    });
    const stateDir = join(dir, 'state');
    const env = simulatorEnv(simulator);
    const apply = [
      'apply',
      file,
      '--yes',
      '--state-dir',
      stateDir,
      '--no-download',
      '--poll-interval',
      '10-20',
    ];
    const created = () => simulator.stats().jobsCreated;
    const first = await runCli(apply, { env });
    expect(first.code, first.stderr).toBe(0);
    expect(created()).toBe(jobIds.length);

    const journal = join(await findRunDir(stateDir), 'journal.jsonl');
    const good = await readFile(journal, 'utf8');
    const lines = good.trimEnd().split('\n').length;
    // Once, this turned the done job back to pending, and the next apply paid for it again.
    const forged = {
      type: 'failed',
      at: 1,
      id: jobIds[0],
      attempt: 1,
      failureKind: 'X',
      error: 'e',
      willRetry: 'yes',
    };
    await appendFile(journal, `${JSON.stringify(forged)}\n`);

    const refused = await runCli(apply, { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `${journal} is corrupt at line ${lines + 1}: a "failed" record whose "willRetry" must be boolean (received "yes"). Nothing was created.`,
    );
    expect(refused.stderr).toContain('runner state check');
    expect(created()).toBe(jobIds.length);

    const check = ['state', 'check', file, '--state-dir', stateDir];
    const found = await runCli(check, { env: {} });
    expect(found.code).toBe(1);
    expect(found.stdout).toContain(
      `${journal}:${lines + 1}: a "failed" record whose "willRetry" must be boolean`,
    );
    expect(found.stderr).toContain('--repair');
    expect(await readFile(journal, 'utf8')).not.toBe(good);

    const repaired = await runCli([...check, '--repair'], { env: {} });
    expect(repaired.code, repaired.stderr).toBe(0);
    expect(repaired.stdout).toContain(`Cut ${journal} at line ${lines + 1}`);
    expect(await readFile(journal, 'utf8')).toBe(good);
    const copies = (await readdir(dirname(journal))).filter((name) =>
      name.startsWith('journal.jsonl.before-repair-'),
    );
    expect(copies).toHaveLength(1);
    expect(await readFile(join(dirname(journal), copies[0] ?? ''), 'utf8')).toContain('"willRetry":"yes"');

    expect((await runCli(check, { env: {} })).code).toBe(0);
    // Where the other commands find the state, this one does too: RUNNER_STATE_DIR, runner.config.yaml.
    const located = ['state', 'check', file];
    expect((await runCli(located, { env: { RUNNER_STATE_DIR: stateDir } })).code).toBe(0);
    await writeFile(join(dir, 'runner.config.yaml'), 'stateDir: state\n');
    const fromConfig = await runCli(located, { env: {} });
    expect(fromConfig.code, fromConfig.stderr).toBe(0);
    expect(fromConfig.stdout).toContain(`${journal}: ${lines} lines, every record sound.`);
    const resumed = await runCli(apply, { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(created()).toBe(jobIds.length);
  });
});
