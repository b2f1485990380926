import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import { useS3Server } from '../s3-server.js';
import { testCacheEnv } from '../test-cache-env.js';
import { makeWorkDir, simulatorEnv, writeImageMatrixManifest } from './apply-fixtures.js';
import { binPath } from './run-cli.js';

/**
 * The Action with `output: s3://bucket/prefix` (#30.5): its own step scripts (paths, Plan, Apply), run
 * as GitHub runs them, with the built CLI against the simulator and a real S3 server (s3rver). The
 * results, thumbnails, report.html and results.json go into the bucket under <prefix>/<run-id>/;
 * plan.md, junit.xml and apply.log into a folder of the runner (files-dir), which is the artifact; no
 * folder named `s3:` is made in the workspace; a re-run attempt on a fresh runner creates nothing.
 */
const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const s3 = useS3Server();

interface Step {
  id?: string;
  name?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
  with?: Record<string, string | boolean>;
}

async function actionSteps(): Promise<Step[]> {
  return (parse(await readFile(join(root, 'action.yml'), 'utf8')) as { runs: { steps: Step[] } }).runs.steps;
}

/** Runs a step's script as GitHub runs `shell: bash`. */
async function runStep(step: Step | undefined, cwd: string, env: Record<string, string>) {
  if (step?.run === undefined) throw new Error('no such step');
  return run('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run], { cwd, env });
}

describe("the Action's output input with a bucket (#30.5)", () => {
  let simulator: Simulator | undefined;
  afterEach(async () => {
    await simulator?.close();
    simulator = undefined;
  });

  it(
    'puts the results and the report into the bucket, keeps plan/junit/log on the runner, and a re-run creates nothing',
    { timeout: 180_000 },
    async () => {
      simulator = await startSimulator({ timeScale: 0.005 });
      const dir = await makeWorkDir('action-s3');
      await mkdir(join(dir, 'pipelines'), { recursive: true });
      await writeImageMatrixManifest(join(dir, 'pipelines'), {
        name: 'nightly',
        subjects: ['fox', 'owl'],
        styles: ['ink', 'oil'],
      });
      // The built CLI, with fast polls for the simulator: the action calls `$RUNNER apply …`.
      const wrapper = join(dir, 'runner');
      await writeFile(
        wrapper,
        `#!/bin/sh\ncmd="$1"; shift\n[ "$cmd" = apply ] && set -- --poll-interval 15-25 --first-poll 50 "$@"\nexec "${process.execPath}" "${binPath}" "$cmd" "$@"\n`,
      );
      await chmod(wrapper, 0o755);
      const steps = await actionSteps();

      const attempt = async (number: number) => {
        const runnerTemp = join(dir, `runner-temp-${number}`);
        const githubOutput = join(dir, `github-output-${number}`);
        const summary = join(dir, `summary-${number}.md`);
        await writeFile(githubOutput, '');
        const base = {
          ...testCacheEnv,
          PATH: process.env.PATH ?? '',
          NO_COLOR: '1',
          CI: 'true',
          RUNNER_TEMP: runnerTemp,
          GITHUB_OUTPUT: githubOutput,
          GITHUB_STEP_SUMMARY: summary,
        };
        await runStep(
          steps.find((step) => step.id === 'paths'),
          dir,
          {
            ...base,
            MANIFEST: 'pipelines/nightly.yaml',
            RUN_ID: '',
            OUTPUT: `s3://${s3().bucket}/ci`,
            WORKFLOW_RUN_ID: '4242',
          },
        );
        const paths = Object.fromEntries(
          (await readFile(githubOutput, 'utf8'))
            .trim()
            .split('\n')
            .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
        );
        expect(paths).toEqual({
          run: '4242',
          state: 'pipelines/.runner',
          dir: `s3://${s3().bucket}/ci/4242`,
          report: `s3://${s3().bucket}/ci/4242/report.html`,
          files: `${runnerTemp}/runner-files/4242`,
        });
        const env = {
          ...base,
          ...simulatorEnv(simulator!),
          ...s3().cliEnv(dir),
          RUNNER: wrapper,
          MANIFEST: 'pipelines/nightly.yaml',
          RUN_ID: paths.run!,
          OUTPUT: paths.dir!,
          FILES: paths.files!,
          STATE: paths.state!,
          STATE_URL: '',
          RETRY_FAILED: 'on-rerun',
          RUN_ATTEMPT: String(number),
          MAX_CREDITS: '',
          TIME_LIMIT: '',
        };
        await runStep(
          steps.find((step) => step.name === 'Plan'),
          dir,
          env,
        );
        const applied = await runStep(
          steps.find((step) => step.name === 'Apply'),
          dir,
          env,
        );
        return { paths, applied, summary };
      };

      const first = await attempt(1);
      expect(simulator.stats().jobsCreated).toBe(4);
      const keys = await s3().listKeys('ci/4242');
      for (const name of ['report.html', 'results.json', 'results.csv'])
        expect(keys).toContain(`ci/4242/${name}`);
      expect(keys.filter((key) => /^ci\/4242\/img-[a-z]+-[a-z]+\.png$/.test(key))).toHaveLength(4);
      expect(
        keys.filter((key) => key.startsWith('ci/4242/thumbnails/') && key.endsWith('.webp')),
      ).toHaveLength(4);
      // The runner's own files: the artifact.
      expect((await readdir(first.paths.files!)).sort()).toEqual(['apply.log', 'junit.xml', 'plan.md']);
      expect(await readFile(join(first.paths.files!, 'junit.xml'), 'utf8')).toMatch(
        /<testsuites[^>]* tests="4"/,
      );
      // Nothing of the bucket's name became a folder of the workspace.
      expect(existsSync(join(dir, 's3:'))).toBe(false);
      // The job summary names the page and the index by their bucket keys.
      const summary = await readFile(first.summary, 'utf8');
      expect(summary).toContain(`s3://${s3().bucket}/ci/4242/report.html`);
      expect(summary).toContain(`s3://${s3().bucket}/ci/4242/results.json`);

      // "Re-run jobs" on a fresh runner (its own temporary folder, the state restored from the cache):
      // nothing is created, the runner's files are there again for the attempt's artifact.
      const second = await attempt(2);
      expect(simulator.stats().jobsCreated).toBe(4);
      expect((await readdir(second.paths.files!)).sort()).toEqual(['apply.log', 'junit.xml', 'plan.md']);
      // The artifact is that folder, uploaded again by each attempt under the same name.
      const upload = steps.find((step) => step.uses?.startsWith('actions/upload-artifact@') === true);
      expect(upload?.with?.path).toBe('${{ steps.paths.outputs.files }}');
      expect(upload?.with?.overwrite).toBe(true);
    },
  );
});
