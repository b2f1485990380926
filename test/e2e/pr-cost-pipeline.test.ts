import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binPath, runCli } from './run-cli.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const fixtures = join(root, 'test/fixtures/diff');

interface Step {
  id?: string;
  run?: string;
}

/**
 * The action's pr-cost steps with the REAL built runner, on two checkouts of a repository of manifests
 * (test/fixtures/diff: a new axis value, numImages raised, a model switch, a rename, a manifest added
 * and one removed, and studio-pro's price raised in the head's catalog.json): every command and flag
 * they pass is one the CLI takes, and the comment they post is `runner diff --format markdown`'s.
 */
describe('the pr-cost steps with the built runner', () => {
  let dir: string;
  let workspace: string;
  let steps: Step[];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runner-e2e-pr-pipeline-'));
    workspace = join(dir, 'workspace');
    await cp(join(fixtures, 'head'), workspace, { recursive: true });
    await cp(join(fixtures, 'base'), join(workspace, '.runner-pr-base'), { recursive: true });
    await cp(join(fixtures, 'catalog-head.json'), join(workspace, 'catalog.json'));
    await cp(join(fixtures, 'catalog-base.json'), join(workspace, '.runner-pr-base', 'catalog.json'));
    steps = (parse(await readFile(join(root, 'action.yml'), 'utf8')) as { runs: { steps: Step[] } }).runs
      .steps;
  });
  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  async function runStep(id: string, env: Record<string, string>, cwd = workspace) {
    const step = steps.find((candidate) => candidate.id === id);
    const output = join(dir, `${id}.output`);
    await writeFile(output, '');
    await writeFile(join(dir, 'summary.md'), '');
    const result = await run('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step?.run ?? ''], {
      cwd,
      env: {
        PATH: process.env.PATH ?? '',
        NO_COLOR: '1',
        RUNNER: `${process.execPath} ${binPath}`,
        DIR: join(dir, 'pr-cost'),
        GITHUB_WORKSPACE: cwd,
        GITHUB_OUTPUT: output,
        GITHUB_STEP_SUMMARY: join(dir, 'summary.md'),
        GITHUB_REPOSITORY: 'octo-org/pipelines',
        GITHUB_EVENT_PATH: join(dir, 'event.json'),
        ...env,
      },
    });
    return { ...result, output: await readFile(output, 'utf8') };
  }

  it('plans both sides offline, diffs them with the guardrail, and summarises the comment', async () => {
    await mkdir(join(dir, 'pr-cost'), { recursive: true });
    await writeFile(join(dir, 'event.json'), JSON.stringify({ pull_request: { number: 42 } }));
    await runStep('pr-plan', {
      MANIFESTS: 'pipelines/*.yaml',
      CATALOG: 'catalog.json',
      MEDIAGEN_API_KEY: '',
      MEDIAGEN_BASE_URL: '',
    });
    const diffed = await runStep('pr-diff', {
      FAIL_ON_INCREASE: '',
      FAIL_ON_INCREASE_PERCENT: '10',
      TAG: '',
    });
    expect(diffed.output).toContain('status=3\n');
    const diff = JSON.parse(await readFile(join(dir, 'pr-cost', 'diff.json'), 'utf8')) as {
      kind: string;
      catalogs: { samePrices: boolean; base: { path: string } };
      guardrails: { crossed: boolean }[];
    };
    expect(diff.kind).toBe('runner-cost-diff');
    expect(diff.catalogs.samePrices).toBe(false);
    expect(diff.catalogs.base.path).toBe('catalog.json');
    expect(diff.guardrails.map((g) => g.crossed)).toEqual([true]);
    const summary = await readFile(join(dir, 'summary.md'), 'utf8');
    const markdown = await runCli(
      [
        'diff',
        join(dir, 'pr-cost', 'base.json'),
        join(dir, 'pr-cost', 'head.json'),
        '--format',
        'markdown',
        '--fail-on-increase-percent',
        '10',
      ],
      { cwd: workspace },
    );
    expect(markdown.code).toBe(3);
    // The comment adds the note of where the full diff is only when it had to be cut; this one was not.
    expect(summary).toBe(markdown.stdout);
    expect(summary).toContain('| pipelines/launch.yaml (4 per month) | added |');
    expect(summary).toContain('| studio-pro | 6 credits per job');
  }, 60_000);

  /**
   * #33.5, as found: the pull request that adopts runner. Its base commit has no pipelines/ (nor
   * catalog.json), so the base side's plan exited 2 "no manifest matches this glob" and the check failed.
   */
  it('prices the first pull request: a base without manifests is an empty side, all added', async () => {
    const first = join(dir, 'first');
    await cp(join(fixtures, 'head'), first, { recursive: true });
    await cp(join(fixtures, 'catalog-head.json'), join(first, 'catalog.json'));
    await mkdir(join(first, '.runner-pr-base'), { recursive: true });
    await mkdir(join(dir, 'pr-cost'), { recursive: true });
    const env = {
      MANIFESTS: 'pipelines/*.yaml',
      CATALOG: 'catalog.json',
      MEDIAGEN_API_KEY: '',
      MEDIAGEN_BASE_URL: '',
    };
    await runStep('pr-plan', env, first);
    const diffed = await runStep(
      'pr-diff',
      { FAIL_ON_INCREASE: '', FAIL_ON_INCREASE_PERCENT: '', TAG: '' },
      first,
    );
    expect(diffed.output).toContain('status=0\n');
    const diff = JSON.parse(await readFile(join(dir, 'pr-cost', 'diff.json'), 'utf8')) as {
      total: { base: number; head: number };
      manifests: { path: string; change: string }[];
    };
    expect(diff.manifests.map((m) => [m.path, m.change])).toEqual([
      ['pipelines/launch.yaml', 'added'],
      ['pipelines/social.yaml', 'added'],
    ]);
    expect(diff.total.base).toBe(0);
    const summary = await readFile(join(dir, 'summary.md'), 'utf8');
    expect(summary).toContain(
      'The base commit has no manifests: every manifest of this pull request is added.',
    );
  }, 60_000);

  it("prices a base whose tree has manifests but no catalog.json with the head's, and says so", async () => {
    const noCatalog = join(dir, 'no-catalog');
    await cp(join(fixtures, 'head'), noCatalog, { recursive: true });
    await cp(join(fixtures, 'catalog-head.json'), join(noCatalog, 'catalog.json'));
    await cp(join(fixtures, 'base'), join(noCatalog, '.runner-pr-base'), { recursive: true });
    await mkdir(join(dir, 'pr-cost'), { recursive: true });
    const env = {
      MANIFESTS: 'pipelines/*.yaml',
      CATALOG: 'catalog.json',
      MEDIAGEN_API_KEY: '',
      MEDIAGEN_BASE_URL: '',
    };
    await runStep('pr-plan', env, noCatalog);
    await runStep('pr-diff', { FAIL_ON_INCREASE: '', FAIL_ON_INCREASE_PERCENT: '', TAG: '' }, noCatalog);
    const diff = JSON.parse(await readFile(join(dir, 'pr-cost', 'diff.json'), 'utf8')) as {
      catalogs: { samePrices: boolean; base: { fallbackFor?: string } };
      manifests: { path: string; change: string }[];
    };
    expect(diff.catalogs.samePrices).toBe(true);
    expect(diff.catalogs.base.fallbackFor).toBe('catalog.json');
    expect(diff.manifests.map((m) => m.change)).toEqual(['added', 'removed', 'changed']);
    const summary = await readFile(join(dir, 'summary.md'), 'utf8');
    expect(summary).toContain(
      "The base commit has no `catalog.json`: both sides were priced with the pull request's, so the delta is the manifests' change alone.",
    );
  }, 60_000);
});
