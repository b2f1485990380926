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

/**
 * The action's `command: pr-cost` steps (#18.7), run as GitHub runs `shell: bash`, with a stand-in
 * runner that records its arguments: which side is planned where with which catalog, that the API key
 * never reaches a plan, that a crossed guardrail still comments and then fails, that a fork's pull
 * request is not commented.
 */
describe("the action's pr-cost steps", () => {
  let dir: string;
  let steps: Step[];
  let calls: string;
  let bin: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runner-e2e-pr-cost-'));
    const doc = parse(await readFile(join(root, 'action.yml'), 'utf8')) as { runs: { steps: Step[] } };
    steps = doc.runs.steps;
    calls = join(dir, 'calls');
    bin = join(dir, 'bin');
    await mkdir(bin);
    // Prints what it was given, where, and whether it saw the key; `diff` exits $DIFF_EXIT.
    await writeFile(
      join(bin, 'fake-runner'),
      [
        '#!/bin/sh',
        'echo "$(basename "$PWD"): runner $* key=${MEDIAGEN_API_KEY:-none} token=${GITHUB_TOKEN:+set}" >> "$CALLS"',
        '[ "$1" = diff ] && { echo "{}"; exit "${DIFF_EXIT:-0}"; }',
        '[ "$1" = comment ] && [ "$5" != --dry-run ] && echo \'{"url":"https://github.com/o/r/pull/4#issuecomment-9"}\'',
        '[ "$1" = comment ] && [ "$5" = --dry-run ] && echo "## cost"',
        'exit 0',
      ].join('\n'),
    );
    await chmod(join(bin, 'fake-runner'), 0o755);
    await mkdir(join(dir, 'workspace', '.runner-pr-base', 'pipelines'), { recursive: true });
    await mkdir(join(dir, 'workspace', 'pipelines'), { recursive: true });
    // A file the glob would match, were the shell to expand it: it must reach runner as written.
    await writeFile(join(dir, 'workspace', 'pipelines', 'a.yaml'), '');
  });
  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  async function runStep(id: string, env: Record<string, string>) {
    const step = steps.find((candidate) => candidate.id === id);
    expect(step?.if).toBe("inputs.command == 'pr-cost'");
    expect(step?.run, 'a script tested here takes its inputs from env, not ${{ }}').not.toContain('${{');
    await writeFile(calls, '');
    const output = join(dir, 'github-output');
    const summary = join(dir, 'step-summary');
    await writeFile(output, '');
    await writeFile(summary, '');
    const workspace = join(dir, 'workspace');
    const result = await run('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step?.run ?? ''], {
      cwd: workspace,
      env: {
        PATH: `${bin}:${process.env.PATH ?? ''}`,
        RUNNER: 'fake-runner',
        CALLS: calls,
        DIR: join(dir, 'pr-cost'),
        GITHUB_WORKSPACE: workspace,
        GITHUB_OUTPUT: output,
        GITHUB_STEP_SUMMARY: summary,
        GITHUB_REPOSITORY: 'o/r',
        ...env,
      },
    }).catch((error: { code: number; stdout: string }) => error);
    return {
      code: 'code' in result ? result.code : 0,
      stdout: result.stdout,
      calls: (await readFile(calls, 'utf8')).trim().split('\n').filter(Boolean),
      output: await readFile(output, 'utf8'),
      summary: await readFile(summary, 'utf8'),
    };
  }

  it('plans each side offline in its own tree, with its own catalog, the glob as written', async () => {
    const result = await runStep('pr-plan', {
      MANIFESTS: 'pipelines/*.yaml',
      CATALOG: 'catalog.json',
      MEDIAGEN_API_KEY: '',
      MEDIAGEN_BASE_URL: '',
    });
    const out = join(dir, 'pr-cost');
    // --allow-empty and --catalog-fallback: the base of the first pull request has no manifests, or no catalog (#33.5).
    expect(result.calls).toEqual([
      `.runner-pr-base: runner plan pipelines/*.yaml --allow-empty --offline --catalog catalog.json --catalog-fallback ${join(dir, 'workspace')}/catalog.json --format json --out ${out}/base.json key=none token=`,
      `workspace: runner plan pipelines/*.yaml --allow-empty --offline --catalog catalog.json --format json --out ${out}/head.json key=none token=`,
    ]);
  });

  it("with the API key: today's catalog for both sides, and the key reaches no plan", async () => {
    const result = await runStep('pr-plan', {
      MANIFESTS: 'pipelines/a.yaml pipelines/b.yaml',
      CATALOG: 'catalog.json',
      MEDIAGEN_API_KEY: 'mk-secret',
      MEDIAGEN_BASE_URL: '',
    });
    const catalog = join(dir, 'pr-cost', 'catalog.json');
    expect(result.calls[0]).toBe('workspace: runner models --json key=mk-secret token=');
    expect(result.calls.slice(1).map((line) => line.replace(/ --out .*/, ''))).toEqual([
      `.runner-pr-base: runner plan pipelines/a.yaml pipelines/b.yaml --allow-empty --offline --catalog ${catalog} --format json`,
      `workspace: runner plan pipelines/a.yaml pipelines/b.yaml --allow-empty --offline --catalog ${catalog} --format json`,
    ]);
    expect(result.calls.slice(1).every((line) => line.endsWith('key=none token='))).toBe(true);
  });

  it('diffs with the guardrails; exit 3 is kept for the last step, the Markdown goes to the summary page', async () => {
    const crossed = await runStep('pr-diff', {
      FAIL_ON_INCREASE: '',
      FAIL_ON_INCREASE_PERCENT: '50',
      TAG: '',
      DIFF_EXIT: '3',
      GITHUB_TOKEN: 'ghs_token',
    });
    expect(crossed.code).toBe(0);
    const out = join(dir, 'pr-cost');
    expect(crossed.calls).toEqual([
      `workspace: runner diff ${out}/base.json ${out}/head.json --format json --fail-on-increase-percent 50 key=none token=set`,
      // The summary's dry run has no token: it reads and sends nothing.
      `workspace: runner comment github --path ${out}/diff.json --dry-run key=none token=`,
    ]);
    expect(crossed.output).toBe(`status=3\ndiff=${out}/diff.json\n`);
    expect(crossed.summary).toBe('## cost\n');
    const broken = await runStep('pr-diff', {
      FAIL_ON_INCREASE: '',
      FAIL_ON_INCREASE_PERCENT: '',
      TAG: '',
      DIFF_EXIT: '2',
    });
    expect(broken.code).toBe(2);
    const last = steps.at(-1);
    expect(last?.if).toBe("inputs.command == 'pr-cost' && steps.pr-diff.outputs.status == '3'");
    expect(last?.run).toContain('exit 3');
  });

  it("comments with the token, or on a fork's pull_request says why not", async () => {
    const env = {
      BEHAVIOR: 'update',
      WHEN: 'changed',
      TAG: 'video',
      EVENT: 'pull_request',
      GITHUB_TOKEN: 'ghs_token',
    };
    const own = await runStep('pr-comment', { ...env, HEAD_REPO: 'o/r' });
    expect(own.calls).toEqual([
      `workspace: runner comment github --path ${join(dir, 'pr-cost')}/diff.json --behavior update --when changed --tag video --format json key=none token=set`,
    ]);
    expect(own.output).toBe('url=https://github.com/o/r/pull/4#issuecomment-9\n');
    const fork = await runStep('pr-comment', { ...env, HEAD_REPO: 'someone/r' });
    expect(fork.code).toBe(0);
    expect(fork.calls).toEqual([]);
    expect(fork.stdout).toContain('::notice::A pull request from a fork gets a read-only token');
  });
});
