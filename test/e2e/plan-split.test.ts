import { copyFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeWorkDir } from './apply-fixtures.js';
import { runCli, type CliResult } from './run-cli.js';

const fixtures = fileURLToPath(new URL('../fixtures/', import.meta.url));
const catalog = join(fixtures, 'plan-golden/catalog.json');
/** Counts the worker threads started, and can make each one fail (see the file). */
const preload = { NODE_OPTIONS: `--require ${JSON.stringify(join(fixtures, 'preload/plan-worker.cjs'))}` };

/**
 * A manifest of 1 + 4 × 30 = 121 jobs: a plain job, then a matrix whose prompt reads `{{ index }}`
 * (a part starts inside the entry, at its own index). Split from 2 jobs on, the main thread plans
 * jobs 1–63 and the worker 64–121 (`plan-split.ts`). `extra` lines are added to the matrix's values.
 */
function manifest(options: { plainId?: string; subjects?: string[] } = {}): string {
  const subjects = options.subjects ?? ['fox', 'owl', 'heron', 'lynx'];
  const variants = Array.from({ length: 30 }, (_, index) => `v${index}`);
  return [
    'version: 1',
    'name: split',
    'defaults: { kind: image, model: chatgpt-image-sangtao, params: { format: png } }',
    'jobs:',
    `  - id: ${options.plainId ?? 'cover'}`,
    '    prompt: A cover picture of the whole series',
    "  - id: '{{ subject }}-{{ variant }}'",
    `    matrix: { subject: [${subjects.map((s) => JSON.stringify(s)).join(', ')}], variant: [${variants.join(', ')}] }`,
    '    prompt: A {{ subject }} in the snow, picture {{ index }} of the {{ subject }} series',
    "    params: { aspectRatio: '16:9', referenceImages: [./logo.png] }",
    '',
  ].join('\n');
}

/** The plan of `file` on one thread and split over two (or the split path's failure). */
async function bothWays(
  dir: string,
  file: string,
  flags: string[],
  extraEnv: Record<string, string> = {},
): Promise<{ one: CliResult; split: CliResult }> {
  const args = ['plan', file, '--offline', '--catalog', catalog, ...flags];
  const one = await runCli(args, { cwd: dir, env: { ...preload, RUNNER_PLAN_SPLIT_MIN_JOBS: '0' } });
  const split = await runCli(args, {
    cwd: dir,
    env: { ...preload, RUNNER_PLAN_SPLIT_MIN_JOBS: '2', ...extraEnv },
  });
  return { one, split };
}

describe('plan: a large plan split over two threads writes what one thread writes (#34)', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await makeWorkDir('plan-split');
    await copyFile(join(fixtures, 'plan-golden/logo.png'), join(dir, 'logo.png'));
  });

  it.each([['json'], ['text'], ['markdown']])('a valid plan, --format %s: the same bytes', async (format) => {
    const file = join(dir, `valid-${format}.yaml`);
    await writeFile(file, manifest());
    const { one, split } = await bothWays(dir, file, ['--format', format]);
    expect(one.code).toBe(0);
    expect(one.stderr).toContain('workers started: 0');
    expect(split.stderr).toContain('workers started: 1');
    expect(split.code).toBe(0);
    expect(split.stdout).toBe(one.stdout);
    if (format === 'json') {
      const report = JSON.parse(one.stdout) as { jobList: { id: string; prompt: string }[] };
      expect(report.jobList).toHaveLength(121);
      // The worker's first job is the matrix's 63rd: its index is the entry's, not the part's.
      expect(report.jobList[63]).toMatchObject({
        id: 'heron-v2',
        prompt: expect.stringContaining('picture 62 '),
      });
    }
  });

  it('a duplicate id across the two parts: the same error as on one thread', async () => {
    const file = join(dir, 'duplicate.yaml');
    // The plain job (the main thread's) has the id of the matrix's last job (the worker's).
    await writeFile(file, manifest({ plainId: 'lynx-v29' }));
    const { one, split } = await bothWays(dir, file, ['--format', 'json']);
    expect(one.code).not.toBe(0);
    expect(one.stderr).toContain('lynx-v29');
    expect(split.stderr).toContain('workers started: 1');
    expect({ code: split.code, stdout: split.stdout, stderr: split.stderr }).toEqual({
      code: one.code,
      stdout: one.stdout,
      stderr: one.stderr.replace('workers started: 0', 'workers started: 1'),
    });
  });

  it('ids equal but for case across the parts: the same warning as on one thread', async () => {
    const file = join(dir, 'case.yaml');
    await writeFile(file, manifest({ plainId: 'LYNX-v29' }));
    const { one, split } = await bothWays(dir, file, ['--format', 'text']);
    expect(one.code).toBe(0);
    expect(one.stdout).toContain('ids-differ-in-case: job ids "LYNX-v29" and "lynx-v29"');
    expect(split.stdout).toBe(one.stdout);
    expect(split.stderr).toBe(one.stderr.replace('workers started: 0', 'workers started: 1'));
  });

  it('an invalid job in the second part: the same issues, in the same order', async () => {
    const file = join(dir, 'invalid.yaml');
    // The last subject's ids hold a slash (unsafe): every one of them is the worker's.
    await writeFile(file, manifest({ subjects: ['fox', 'owl', 'heron', 'ly/nx'] }));
    const { one, split } = await bothWays(dir, file, ['--format', 'json']);
    expect(one.code).not.toBe(0);
    expect(one.stderr).toContain('unsafe-id');
    expect(split.stderr).toContain('workers started: 1');
    expect({ code: split.code, stdout: split.stdout, stderr: split.stderr }).toEqual({
      code: one.code,
      stdout: one.stdout,
      stderr: one.stderr.replace('workers started: 0', 'workers started: 1'),
    });
  });

  it.each([['throw'], ['exit']])(
    'a worker that fails (%s) fails the plan with a clear error and no report',
    async (how) => {
      const file = join(dir, `failing-${how}.yaml`);
      await writeFile(file, manifest());
      const { split } = await bothWays(dir, file, ['--format', 'json'], { RUNNER_TEST_PLAN_WORKER: how });
      expect(split.code).not.toBe(0);
      expect(split.stdout).toBe('');
      expect(split.stderr).toMatch(/The plan's second thread \(jobs 64 to 121\) (failed|stopped)/);
      expect(split.stderr).toContain('RUNNER_PLAN_SPLIT_MIN_JOBS=0');
    },
  );

  it('RUNNER_PLAN_SPLIT_MIN_JOBS that is not a number of jobs is refused', async () => {
    const file = join(dir, 'valid-env.yaml');
    await writeFile(file, manifest());
    const result = await runCli(['plan', file, '--offline', '--catalog', catalog], {
      cwd: dir,
      env: { RUNNER_PLAN_SPLIT_MIN_JOBS: 'many' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('RUNNER_PLAN_SPLIT_MIN_JOBS must be a whole number');
  });
});
