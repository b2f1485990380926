import { cp, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { RunsView } from '../../src/state/run-summary.js';
import type { StatusView } from '../../src/state/status-view.js';
import { FAST, makeWorkDir } from './apply-fixtures.js';
import { runCli } from './run-cli.js';

const pipelines = fileURLToPath(new URL('../../pipelines/', import.meta.url));

/**
 * After `npm run demo` (an `apply --simulate` of pipelines/demo.yaml), the commands that read a run
 * found no state, and the hint offered an apply against the real, paid service (#20.10). The simulated
 * state lives in a temporary folder (the in-process simulator forgets its jobs), so the summary names
 * the command that finds it, and the no-state hint says where a simulated run went.
 */
describe('the demo, then status, runs and report', () => {
  it('finds the run with the --state-dir the summary prints', { timeout: 60_000 }, async () => {
    const dir = await makeWorkDir('demo');
    await mkdir(join(dir, 'pipelines'));
    await cp(join(pipelines, 'demo.yaml'), join(dir, 'pipelines', 'demo.yaml'));
    await cp(join(pipelines, 'assets'), join(dir, 'pipelines', 'assets'), { recursive: true });
    const manifest = join(dir, 'pipelines', 'demo.yaml');
    // The temporary state folder inside this test's own folder.
    const env = { TMPDIR: join(dir, 'tmp') };
    await mkdir(env.TMPDIR);

    const demo = await runCli(
      ['apply', manifest, '--simulate', '--yes', '--sim-time-scale', '0.005', ...FAST],
      { env, cwd: dir },
    );
    expect(demo.code, demo.stderr).toBe(0);
    const shown = /See this run with `runner status (\S+) --state-dir (\S+)`/.exec(demo.stdout);
    expect(shown, demo.stdout).not.toBeNull();
    const [, file = '', stateDir = ''] = shown ?? [];
    expect(file).toBe(manifest);
    expect(stateDir.startsWith(env.TMPDIR)).toBe(true);

    const status = await runCli(['status', file, '--state-dir', stateDir, '--json'], { env, cwd: dir });
    expect(status.code, status.stderr).toBe(0);
    expect((JSON.parse(status.stdout) as StatusView).totals).toMatchObject({ jobs: 5, done: 5 });
    const runs = await runCli(['runs', file, '--state-dir', stateDir, '--json'], { env, cwd: dir });
    expect((JSON.parse(runs.stdout) as RunsView).runs.map((run) => run.runId)).toEqual(['default']);
    const report = await runCli(
      ['report', file, '--state-dir', stateDir, '--out', join(dir, 'report.html')],
      {
        env,
        cwd: dir,
      },
    );
    expect(report.code, report.stderr).toBe(0);

    // Without it: no state beside the manifest, and the hint says where a simulated run went instead of
    // only offering an apply against the paid service.
    const none = await runCli(['status', file], { env, cwd: dir });
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/starts one, against the service \(paid\)/);
    expect(none.stderr).toMatch(
      /`apply --simulate` \(`npm run demo`\) keeps its state in a temporary folder/,
    );
    const noRuns = await runCli(['runs', file], { env, cwd: dir });
    expect(noRuns.stdout).toMatch(/temporary folder: pass the --state-dir its summary printed/);
  });
});
