import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));

interface Step {
  id?: string;
  name?: string;
  if?: string;
  run?: string;
  uses?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}

interface Workflow {
  inputs?: Record<string, { default?: string; description?: string }>;
  runs?: { steps: Step[] };
  jobs?: Record<string, { steps: Step[]; env?: Record<string, string> }>;
}

async function readWorkflow(file: string): Promise<{ doc: Workflow; steps: Step[] }> {
  const doc = parse(await readFile(join(root, file), 'utf8')) as Workflow;
  const steps = doc.runs?.steps ?? Object.values(doc.jobs ?? {}).flatMap((job) => job.steps);
  return { doc, steps };
}

/** Runs a step's shell script as GitHub runs `shell: bash` (`bash --noprofile --norc -eo pipefail`). */
async function runStep(step: Step, options: { cwd: string; env: Record<string, string> }) {
  if (step.run === undefined) throw new Error(`step ${step.name ?? step.id ?? '?'} has no run script`);
  expect(step.run, 'a script tested here takes its inputs from env, not ${{ }}').not.toContain('${{');
  return run('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run], options);
}

/**
 * The Actions cache must keep the state of every night, whatever its outcome (#17.1): actions/cache's
 * own save runs only when the job succeeded (`post-if: success()`), and one failed job makes apply exit
 * 1, so the night's journal was lost and a re-run paid its done jobs again.
 */
describe.each(['action.yml', 'docs/github-nightly.yml'])('%s keeps the state of every night', (file) => {
  let steps: Step[];
  beforeAll(async () => {
    ({ steps } = await readWorkflow(file));
  });

  const find = (prefix: string) => steps.findIndex((step) => step.uses?.startsWith(prefix) === true);

  it('restores with actions/cache/restore and saves with actions/cache/save under always()', () => {
    expect(steps.filter((step) => /^actions\/cache@/.test(step.uses ?? ''))).toEqual([]);
    const restore = steps[find('actions/cache/restore@')];
    const save = steps[find('actions/cache/save@')];
    expect(restore).toBeDefined();
    expect(save).toBeDefined();
    expect(save?.if).toMatch(/^always\(\)/);
    expect(save?.with?.path).toBe(restore?.with?.path);
    // The paid work sits between the two.
    const apply =
      file === 'action.yml' ? steps.findIndex((step) => step.name === 'Apply') : find('mediagen/runner@');
    expect(find('actions/cache/restore@')).toBeLessThan(apply);
    expect(find('actions/cache/save@')).toBeGreaterThan(apply);
  });

  it('saves one entry per workflow run and attempt, and restores the newest by prefix', () => {
    const restore = steps[find('actions/cache/restore@')];
    const save = steps[find('actions/cache/save@')];
    const key = save?.with?.key ?? '';
    expect(restore?.with?.key).toBe(key);
    expect(key).toContain('${{ github.run_id }}');
    expect(key).toContain('${{ github.run_attempt }}');
    // First this workflow run's own newest entry (a re-run of an older night, after later nights saved
    // theirs), then the manifest's newest.
    const prefixes = (restore?.with?.['restore-keys'] ?? '').trim().split('\n');
    expect(prefixes).toHaveLength(2);
    const [own = '', any = ''] = prefixes;
    expect(own.endsWith('${{ github.run_id }}-')).toBe(true);
    expect(any).not.toContain('github.run_');
    for (const prefix of prefixes) expect(key.startsWith(prefix)).toBe(true);
  });
});

describe('the nightly workflow and the action agree', () => {
  it('the workflow caches the folder the action keeps the state in, and tells the action not to', async () => {
    const { doc, steps } = await readWorkflow('docs/github-nightly.yml');
    const env = Object.values(doc.jobs ?? {})[0]?.env ?? {};
    const action = steps.find((step) => step.uses?.startsWith('mediagen/runner@') === true);
    expect(action?.with?.manifest).toBe('${{ env.MANIFEST }}');
    expect(action?.with?.['cache-state']).toBe('false');
    expect(env.STATE).toBe(join(env.MANIFEST ?? '', '..', '.runner'));
    const save = steps.find((step) => step.uses?.startsWith('actions/cache/save@') === true);
    expect(save?.with?.path).toBe('${{ env.STATE }}');
    expect(save?.with?.key).toContain('${{ env.MANIFEST }}');
  });

  it('the action caches on its own unless told not to', async () => {
    const { doc, steps } = await readWorkflow('action.yml');
    expect(doc.inputs?.['cache-state']?.default).toBe('true');
    const restore = steps.find((step) => step.uses?.startsWith('actions/cache/restore@') === true);
    const save = steps.find((step) => step.uses?.startsWith('actions/cache/save@') === true);
    expect(restore?.if).toBe("inputs.command == 'apply' && inputs.cache-state == 'true'");
    // Not when the state folder was never resolved (the install failed): a save without a path fails.
    expect(save?.if).toBe("always() && inputs.cache-state == 'true' && steps.paths.outputs.state != ''");
    expect(restore?.with?.path).toBe('${{ steps.paths.outputs.state }}');
  });
});

describe("the action's scripts", () => {
  let dir: string;
  let steps: Step[];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runner-e2e-action-'));
    ({ steps } = await readWorkflow('action.yml'));
  });
  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  /** The paths step's outputs for an input run id (empty: the default). */
  async function resolvePaths(runId: string): Promise<Record<string, string>> {
    const step = steps.find((candidate) => candidate.id === 'paths');
    expect(step?.env?.WORKFLOW_RUN_ID).toBe('${{ github.run_id }}');
    const output = join(dir, `output-${runId || 'default'}`);
    await writeFile(output, '');
    await runStep(step ?? {}, {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '',
        GITHUB_OUTPUT: output,
        MANIFEST: 'pipelines/nightly.yaml',
        RUN_ID: runId,
        OUTPUT: 'runner-output',
        WORKFLOW_RUN_ID: '9876543210',
      },
    });
    const lines = (await readFile(output, 'utf8')).trim().split('\n');
    return Object.fromEntries(
      lines.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
  }

  it('defaults the run id to the workflow run id, which re-runs keep, not to the date (#24.10)', async () => {
    expect(await resolvePaths('')).toEqual({
      run: '9876543210',
      state: 'pipelines/.runner',
      // Each run its own folder: a kept workspace's next night is not refused by last night's claim.
      dir: 'runner-output/9876543210',
      report: 'runner-output/9876543210/report.html',
      // plan.md, junit.xml and apply.log beside the results (a bucket output: action-s3-output.test.ts).
      files: 'runner-output/9876543210',
    });
    expect((await resolvePaths('night-7')).run).toBe('night-7');
  });

  /** Runs the install step in a fake action folder with an `npm` that records its arguments. */
  async function install(prebuilt: boolean): Promise<string[]> {
    const actionPath = join(dir, prebuilt ? 'release' : 'source');
    const bin = join(dir, `bin-${prebuilt ? 'release' : 'source'}`);
    await mkdir(bin, { recursive: true });
    await mkdir(join(actionPath, 'dist', 'bundle'), { recursive: true });
    if (prebuilt) await writeFile(join(actionPath, 'dist', 'bundle', 'runner.js'), '');
    const calls = join(dir, `npm-calls-${prebuilt ? 'release' : 'source'}`);
    // `npm ci` of a source checkout runs `prepare`, which builds dist/.
    await writeFile(
      join(bin, 'npm'),
      `#!/bin/sh\necho "$*" >> "${calls}"\n[ "$1" = ci ] && touch dist/bundle/runner.js\nexit 0\n`,
    );
    await chmod(join(bin, 'npm'), 0o755);
    await writeFile(calls, '');
    const step = steps.find((candidate) => candidate.name === 'Install runner');
    expect(step?.['working-directory' as keyof Step]).toBe('${{ github.action_path }}');
    await runStep(step ?? {}, { cwd: actionPath, env: { PATH: `${bin}:${process.env.PATH ?? ''}` } });
    return (await readFile(calls, 'utf8')).trim().split('\n');
  }

  it('installs only the runtime dependencies, without scripts, where dist/ is prebuilt (a release)', async () => {
    expect(await install(true)).toEqual(['ci --omit=dev --ignore-scripts --no-audit --no-fund']);
  });

  it('builds dist/ through `prepare` where the ref has none (a source commit)', async () => {
    expect(await install(false)).toEqual(['ci --no-audit --no-fund']);
    const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    // scripts/prepare.js builds (after installing the toolchain where a folder install left none: its
    // own test is package-install.test.ts).
    expect(pkg.scripts.prepare).toBe('node scripts/prepare.js');
  });

  it('stops apply with SIGINT at the time limit, so the save step still runs before the job timeout', async () => {
    const step = steps.find((candidate) => candidate.name === 'Apply');
    const bin = join(dir, 'bin-apply');
    await mkdir(bin, { recursive: true });
    // Stand-ins that print what they were given: `timeout` runs the rest of its arguments.
    await writeFile(join(bin, 'fake-runner'), '#!/bin/sh\necho "runner $*"\n');
    await writeFile(join(bin, 'timeout'), '#!/bin/sh\necho "timeout $1 $2 $3"\nshift 3\nexec "$@"\n');
    await chmod(join(bin, 'fake-runner'), 0o755);
    await chmod(join(bin, 'timeout'), 0o755);
    const applyWith = async (limit: string, maxCredits: string) =>
      (
        await runStep(step ?? {}, {
          cwd: dir,
          env: {
            PATH: `${bin}:${process.env.PATH ?? ''}`,
            RUNNER: 'fake-runner',
            MANIFEST: 'pipelines/night ly.yaml',
            RUN_ID: '42',
            OUTPUT: 'out',
            STATE: 'pipelines/.runner',
            MAX_CREDITS: maxCredits,
            TIME_LIMIT: limit,
            MEDIAGEN_BASE_URL: '',
          },
        })
      ).stdout.trim();
    const args =
      // --state-dir: the folder the action caches, whatever RUNNER_STATE_DIR or runner.config.yaml say.
      'apply pipelines/night ly.yaml --run 42 --state-dir pipelines/.runner --yes --output out --report out/report.html --junit out/junit.xml --log-file out/apply.log';
    expect(await applyWith('', '')).toBe(`runner ${args}`);
    expect(await applyWith('110', '400')).toBe(
      `timeout --signal=INT --kill-after=120 110m\nrunner ${args} --max-credits 400`,
    );
  });

  it('passes the state-url input as --state, and no --state-dir beside a database (#31.2)', async () => {
    const bin = join(dir, 'bin-state');
    await mkdir(bin, { recursive: true });
    await writeFile(join(bin, 'fake-runner'), '#!/bin/sh\necho "runner $*"\n');
    await chmod(join(bin, 'fake-runner'), 0o755);
    const env = {
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      RUNNER: 'fake-runner',
      MANIFEST: 'm.yaml',
      RUN_ID: '42',
      OUTPUT: 'out',
      STATE: '.runner',
      MEDIAGEN_BASE_URL: '',
    };
    for (const name of ['Plan', 'Apply']) {
      const step = steps.find((candidate) => candidate.name === name) ?? {};
      expect(step.env?.STATE_URL).toBe('${{ inputs.state-url }}');
      const said = async (extra: Record<string, string>) =>
        (await runStep(step, { cwd: dir, env: { ...env, ...extra } })).stdout.trim();
      const url = 'postgres://runner@db.example:5432/runner';
      expect(await said({ STATE_URL: url })).toMatch(new RegExp(`--run 42 --state ${url} `));
      expect(await said({ STATE_URL: url })).not.toContain('--state-dir');
      expect(await said({ STATE_URL: '', RUNNER_STATE_URL: url })).not.toMatch(/--state/);
      expect(await said({ STATE_URL: '' })).toContain('--state-dir .runner');
    }
  });

  it('re-sends the failed jobs on a re-run attempt, by the retry-failed input (#33.15)', async () => {
    const { doc } = await readWorkflow('action.yml');
    expect(doc.inputs?.['retry-failed']?.default).toBe('on-rerun');
    const bin = join(dir, 'bin-retry');
    await mkdir(bin, { recursive: true });
    await writeFile(join(bin, 'fake-runner'), '#!/bin/sh\necho "runner $*"\n');
    await chmod(join(bin, 'fake-runner'), 0o755);
    for (const name of ['Plan', 'Apply']) {
      const step = steps.find((candidate) => candidate.name === name) ?? {};
      expect(step.env?.RETRY_FAILED).toBe('${{ inputs.retry-failed }}');
      expect(step.env?.RUN_ATTEMPT).toBe('${{ github.run_attempt }}');
      const said = async (retry: string, attempt: string) =>
        (
          await runStep(step, {
            cwd: dir,
            env: {
              PATH: `${bin}:${process.env.PATH ?? ''}`,
              RUNNER: 'fake-runner',
              MANIFEST: 'm.yaml',
              RUN_ID: '42',
              OUTPUT: 'out',
              STATE: '.runner',
              MEDIAGEN_BASE_URL: '',
              RETRY_FAILED: retry,
              RUN_ATTEMPT: attempt,
            },
          })
        ).stdout.trim();
      expect(await said('on-rerun', '1')).not.toContain('--retry-failed');
      expect(await said('on-rerun', '2')).toMatch(/ --retry-failed$/);
      expect(await said('true', '1')).toMatch(/ --retry-failed$/);
      expect(await said('false', '3')).not.toContain('--retry-failed');
      await expect(said('sometimes', '2')).rejects.toMatchObject({
        code: 2,
        stdout: expect.stringContaining('retry-failed must be on-rerun, true or false') as unknown,
      });
    }
  });
});

describe("the action's keep-runs input (#33.14)", () => {
  let dir: string;
  let steps: Step[];
  let doc: Workflow;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runner-e2e-action-prune-'));
    ({ doc, steps } = await readWorkflow('action.yml'));
  });
  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  const prune = () => steps.find((step) => step.name === "Prune old runs' state") ?? {};

  it('keeps every run by default, and prunes after apply, before the state is saved, on every outcome', () => {
    expect(doc.inputs?.['keep-runs']?.default).toBe('');
    const at = (name: string) => steps.findIndex((step) => step.name === name);
    const save = steps.findIndex((step) => step.uses?.startsWith('actions/cache/save@') === true);
    expect(at('Apply')).toBeLessThan(at("Prune old runs' state"));
    expect(at("Prune old runs' state")).toBeLessThan(save);
    expect(prune().if).toBe(
      "always() && inputs.command == 'apply' && inputs.keep-runs != '' && steps.paths.outputs.state != ''",
    );
    expect(prune().env?.KEEP_RUNS).toBe('${{ inputs.keep-runs }}');
  });

  async function runPrune(env: Record<string, string>, runner = 'fake-runner') {
    const bin = join(dir, 'bin');
    await mkdir(bin, { recursive: true });
    await writeFile(join(bin, 'fake-runner'), '#!/bin/sh\necho "runner $*"\n');
    await writeFile(join(bin, 'failing-runner'), '#!/bin/sh\necho "runner $*"\nexit 1\n');
    await chmod(join(bin, 'fake-runner'), 0o755);
    await chmod(join(bin, 'failing-runner'), 0o755);
    const result = await runStep(prune(), {
      cwd: dir,
      env: {
        PATH: `${bin}:${process.env.PATH ?? ''}`,
        RUNNER: runner,
        MANIFEST: 'pipelines/nightly.yaml',
        STATE: 'pipelines/.runner',
        STATE_URL: '',
        ...env,
      },
    });
    return result.stdout.trim();
  }

  it('runs state prune on the state folder, or on the database the night used', async () => {
    expect(await runPrune({ KEEP_RUNS: '14' })).toBe(
      'runner state prune pipelines/nightly.yaml --state-dir pipelines/.runner --keep-runs 14',
    );
    const url = 'postgres://runner@db.example:5432/runner';
    expect(await runPrune({ KEEP_RUNS: '3', STATE_URL: url })).toBe(
      `runner state prune pipelines/nightly.yaml --state ${url} --keep-runs 3`,
    );
    expect(await runPrune({ KEEP_RUNS: '3', RUNNER_STATE_URL: url })).toBe(
      'runner state prune pipelines/nightly.yaml --keep-runs 3',
    );
  });

  it('refuses 0 and what is not a whole number: tonight is the newest run, and a re-run resumes from it', async () => {
    for (const value of ['0', '07', '-1', 'all', '2.5']) {
      await expect(runPrune({ KEEP_RUNS: value })).rejects.toMatchObject({
        code: 2,
        stdout: expect.stringContaining('keep-runs must be a whole number of at least 1') as unknown,
      });
    }
  });

  it('a prune that fails warns, and the state is still saved', async () => {
    const said = await runPrune({ KEEP_RUNS: '2' }, 'failing-runner');
    expect(said).toMatch(/::warning::runner state prune failed \(exit 1\); the state is saved unpruned\./);
  });

  it("the built runner takes the step's command line", async () => {
    await mkdir(join(dir, 'pipelines'), { recursive: true });
    await writeFile(
      join(dir, 'pipelines', 'nightly.yaml'),
      'version: 1\nname: nightly\njobs:\n  - id: one\n    kind: image\n    model: chatgpt-image-sangtao\n    prompt: A lighthouse on a cliff at dusk, painted in thick oil strokes\n',
    );
    const bin = fileURLToPath(new URL('../../dist/bundle/runner.js', import.meta.url));
    const said = await runPrune({ KEEP_RUNS: '2', NO_COLOR: '1' }, `node ${bin}`);
    expect(said).toBe(
      `Nothing was pruned of pipeline "nightly" in ${join(dir, 'pipelines', '.runner')}: 0 runs kept.`,
    );
  });
});

describe('Node.js and permissions (#33.15)', () => {
  it('the action sets up Node.js 22, the active LTS, by default', async () => {
    const { doc, steps } = await readWorkflow('action.yml');
    expect(doc.inputs?.['node-version']?.default).toBe('22');
    const setup = steps.find((step) => step.uses?.startsWith('actions/setup-node@') === true);
    expect(setup?.with?.['node-version']).toBe('${{ inputs.node-version }}');
  });

  it('the nightly workflow declares only the permissions its steps use', async () => {
    const doc = parse(await readFile(join(root, 'docs/github-nightly.yml'), 'utf8')) as {
      permissions?: Record<string, string>;
      jobs: Record<string, { steps: Step[] }>;
    };
    const uses = Object.values(doc.jobs).flatMap((job) => job.steps.map((step) => step.uses ?? ''));
    expect(uses.some((action) => action.startsWith('mikepenz/action-junit-report@'))).toBe(true);
    // checks: write for the JUnit report's check run; contents: read to check out; no OIDC token.
    expect(doc.permissions).toEqual({ contents: 'read', checks: 'write' });
  });
});
