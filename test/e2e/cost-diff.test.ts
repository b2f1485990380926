import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const fixtures = fileURLToPath(new URL('../fixtures/diff/', import.meta.url));
const goldenDir = join(fixtures, 'out');
/** `UPDATE_GOLDEN=1 npx vitest run test/e2e/cost-diff.test.ts` rewrites the goldens (review the diff). */
const update = process.env.UPDATE_GOLDEN === '1';

function golden(name: string, actual: string): void {
  const file = join(goldenDir, name);
  if (update || !existsSync(file)) writeFileSync(file, actual);
  expect(actual).toBe(readFileSync(file, 'utf8'));
}

/**
 * `runner diff` through the built CLI on real-looking changes between two checkouts of a repository
 * of manifests (test/fixtures/diff/base and head): a new axis value (product cold-brew), numImages
 * raised (watercolor), a model switch (hero-banner), a rename (old-teaser → teaser), a manifest added
 * (launch) and one removed (legacy), and a catalog price change between the two sides (studio-pro 6 → 8).
 * Text and JSON against goldens; `plan --compare-to` gives the same JSON as `diff` of the two files.
 */
describe('runner diff (built binary)', () => {
  let dir: string;
  const plan = async (side: 'base' | 'head', catalog: string, out: string, extra: string[] = []) => {
    const result = await runCli(
      [
        'plan',
        'pipelines/*.yaml',
        '--offline',
        '--catalog',
        `../${catalog}`,
        '--format',
        'json',
        '--out',
        join(dir, out),
        ...extra,
      ],
      { cwd: join(fixtures, side) },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return result;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runner-diff-'));
    await plan('base', 'catalog-base.json', 'base.json');
    await plan('head', 'catalog-base.json', 'head.json');
    await plan('head', 'catalog-head.json', 'head-prices.json');
  }, 60_000);
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes one plan set of every manifest the glob matches, with the sum', async () => {
    const set = JSON.parse(await readFile(join(dir, 'head.json'), 'utf8')) as {
      kind: string;
      schemaVersion: number;
      credits: { total: number; perMonth: number | null };
      plans: {
        manifestFile: string;
        credits: { total: number };
        schedule: unknown;
        creditsPerMonth?: number;
      }[];
    };
    expect(set.kind).toBe('runner-plan-set');
    expect(set.schemaVersion).toBe(1);
    expect(set.plans.map((p) => p.manifestFile)).toEqual(['pipelines/launch.yaml', 'pipelines/social.yaml']);
    expect(set.plans.map((p) => p.schedule)).toEqual([
      { label: '4 per month', runsPerMonth: 4 },
      { label: 'nightly', runsPerMonth: 30 },
    ]);
    expect(set.credits).toEqual({ total: 62, perMonth: 12 * 4 + 50 * 30 });
  });

  it('text: jobs added, removed, changed, renamed; per model, axis value, run and month', async () => {
    const result = await runCli(['diff', 'base.json', 'head.json'], { cwd: dir });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    golden('diff.txt', result.stdout);
  });

  it('json: the CostDiff document', async () => {
    const result = await runCli(['diff', 'base.json', 'head.json', '--format', 'json'], { cwd: dir });
    expect(result.code).toBe(0);
    golden('diff.json', result.stdout);
    const diff = JSON.parse(result.stdout) as { total: { delta: number }; catalogs: { samePrices: boolean } };
    expect(diff.total.delta).toBe(32);
    expect(diff.catalogs.samePrices).toBe(true);
  });

  it('a catalog price change is named, and the text says it is not a manifest change', async () => {
    const text = await runCli(['diff', 'base.json', 'head-prices.json'], { cwd: dir });
    expect(text.code).toBe(0);
    golden('diff-prices.txt', text.stdout);
    expect(text.stdout).toContain('are a price change, not a manifest change');
    const json = await runCli(['diff', 'base.json', 'head-prices.json', '--format', 'json'], { cwd: dir });
    golden('diff-prices.json', json.stdout);
    const diff = JSON.parse(json.stdout) as {
      catalogs: {
        samePrices: boolean;
        priceChanges: unknown[];
        base: { path: string };
        head: { path: string };
      };
    };
    expect(diff.catalogs.samePrices).toBe(false);
    expect(diff.catalogs.priceChanges).toEqual([
      {
        model: 'studio-pro',
        base: '6 credits per job × numImages (default 1)',
        head: '8 credits per job × numImages (default 1)',
      },
    ]);
    expect([diff.catalogs.base.path, diff.catalogs.head.path]).toEqual([
      '../catalog-base.json',
      '../catalog-head.json',
    ]);
  });

  it('guardrails count in the unit written after the limit, and say it (#33.7)', async () => {
    // Nightly on both sides: +24 credits per night, +720 per month. A bare 100 counted per month
    // (crossed) while the comment's headline said +24 per night; 100/night counts per night.
    for (const side of ['base', 'head'] as const) {
      const result = await runCli(
        [
          'plan',
          'pipelines/social.yaml',
          '--offline',
          '--catalog',
          '../catalog-base.json',
          '--format',
          'json',
          '--out',
          join(dir, `social-${side}.json`),
        ],
        { cwd: join(fixtures, side) },
      );
      expect(result.code, result.stderr).toBe(0);
    }
    const diff = (...extra: string[]) =>
      runCli(['diff', 'social-base.json', 'social-head.json', ...extra], { cwd: dir });

    const perNight = await diff('--fail-on-increase', '100/night', '--format', 'markdown');
    expect(perNight.code, perNight.stderr).toBe(0);
    expect(perNight.stdout).toContain('**+24 credits per night (+92.3 %)**');
    expect(perNight.stdout).toContain(
      '\n\nWithin the guardrail `--fail-on-increase`: adds 24 credits per night; the limit is 100 per night.\n',
    );

    const bare = await diff('--fail-on-increase', '100');
    expect(bare.code).toBe(3);
    expect(bare.stdout).toContain(
      '✗ crossed --fail-on-increase 100: adds 720 credits per month; the limit is 100 per month (a bare limit counts per month when every manifest has a schedule; --fail-on-increase 100/night counts per night)',
    );

    const month = await diff(
      '--fail-on-increase',
      '1000/month',
      '--fail-on-increase-percent',
      '90/run',
      '--format',
      'json',
    );
    expect(month.code).toBe(3);
    expect((JSON.parse(month.stdout) as { guardrails: unknown[] }).guardrails).toMatchObject([
      { limit: 'increase', threshold: 1000, per: 'month', actual: 720, crossed: false },
      { limit: 'increase-percent', threshold: 90, per: 'night', actual: 92.3, crossed: true },
    ]);

    const weekly = await diff('--fail-on-increase', '10/week');
    expect(weekly.code).toBe(2);
    expect(weekly.stderr).toContain(
      '--fail-on-increase 10/week: the manifests run once a night: use 10/night',
    );
    const typo = await diff('--fail-on-increase', '10/nights');
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('received "10/nights"');
  });

  it('guardrails: exit 3 with the reason when crossed, 0 within; both in the JSON', async () => {
    const crossed = await runCli(
      ['diff', 'base.json', 'head.json', '--fail-on-increase', '100', '--format', 'json'],
      {
        cwd: dir,
      },
    );
    expect(crossed.code).toBe(3);
    const diff = JSON.parse(crossed.stdout) as { guardrails: unknown[] };
    expect(diff.guardrails).toEqual([
      {
        limit: 'increase',
        threshold: 100,
        per: 'month',
        actual: 750.6,
        crossed: true,
        message:
          'adds 750.6 credits per month; the limit is 100 per month (a bare limit counts per month when every manifest has a schedule; --fail-on-increase 100/run counts per run)',
      },
    ]);
    const text = await runCli(['diff', 'base.json', 'head.json', '--fail-on-increase-percent', '50'], {
      cwd: dir,
    });
    expect(text.code).toBe(3);
    expect(text.stdout).toContain(
      '✗ crossed --fail-on-increase-percent 50: +94.1 % per month; the limit is 50 %',
    );
    const within = await runCli(
      ['diff', 'base.json', 'head.json', '--fail-on-increase', '1000', '--fail-on-increase-percent', '200'],
      {
        cwd: dir,
      },
    );
    expect(within.code).toBe(0);
    expect(within.stdout).toContain('✓ within --fail-on-increase 1000');
  });

  it('plan --compare-to: the head planned now gives the same diff as diff of the two files', async () => {
    const fromFiles = JSON.parse(
      (await runCli(['diff', 'base.json', 'head.json', '--format', 'json'], { cwd: dir })).stdout,
    ) as unknown;
    const now = await runCli(
      [
        'plan',
        'pipelines/*.yaml',
        '--offline',
        '--catalog',
        '../catalog-base.json',
        '--compare-to',
        join(dir, 'base.json'),
        '--format',
        'json',
        '--fail-on-increase',
        '10',
      ],
      { cwd: join(fixtures, 'head') },
    );
    expect(now.stderr).toBe('');
    expect(now.code).toBe(3);
    const compared = JSON.parse(now.stdout) as { guardrails: unknown[] };
    expect({ ...compared, guardrails: [] }).toEqual(fromFiles);
  });

  it('a single-manifest plan report is a diff side; a manifest on one side only is all added', async () => {
    const single = await runCli(
      [
        'plan',
        'pipelines/social.yaml',
        '--offline',
        '--catalog',
        '../catalog-base.json',
        '--format',
        'json',
        '--out',
        join(dir, 'social.json'),
      ],
      { cwd: join(fixtures, 'base') },
    );
    expect(single.code).toBe(0);
    const result = await runCli(['diff', 'social.json', 'head.json', '--format', 'json'], { cwd: dir });
    expect(result.code).toBe(0);
    const diff = JSON.parse(result.stdout) as { manifests: { path: string; change: string }[] };
    expect(diff.manifests.map((m) => [m.path, m.change])).toEqual([
      ['pipelines/launch.yaml', 'added'],
      ['pipelines/social.yaml', 'changed'],
    ]);
  });

  it('refuses a file that is not a plan report, or one without its diff parts (exit 2, file named)', async () => {
    await writeFile(join(dir, 'other.json'), '{"hello": 1}\n');
    const other = await runCli(['diff', 'other.json', 'head.json'], { cwd: dir });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('other.json: is not a runner plan report');
    const old = JSON.parse(await readFile(join(dir, 'social.json'), 'utf8')) as Record<string, unknown>;
    delete old.diffVersion;
    await writeFile(join(dir, 'old.json'), JSON.stringify(old));
    const older = await runCli(['diff', 'old.json', 'head.json'], { cwd: dir });
    expect(older.code).toBe(2);
    expect(older.stderr).toContain('old.json: diffVersion is missing');
    const missing = await runCli(['diff', 'nowhere.json', 'head.json'], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nowhere.json: cannot be read (no such file)');
    const one = await runCli(['diff', 'head.json'], { cwd: dir });
    expect(one.code).toBe(2);
  });

  it('a bad schedule is refused with file:line:col, nothing planned', async () => {
    const manifest = join(dir, 'bad-schedule.yaml');
    await writeFile(
      manifest,
      [
        'version: 1',
        'name: bad',
        'schedule: fortnightly',
        'jobs:',
        '  - { id: a, kind: image, model: studio-image, prompt: x }',
        '',
      ].join('\n'),
    );
    const result = await runCli(
      ['plan', manifest, '--offline', '--catalog', join(fixtures, 'catalog-base.json')],
      { cwd: dir },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/bad-schedule\.yaml:3:11 error .*schedule/);
  });

  it('plan of several manifests in text: each report, then the sum; an invalid one fails the whole with exit 2', async () => {
    const both = await runCli(
      [
        'plan',
        'pipelines/social.yaml',
        'pipelines/launch.yaml',
        '--offline',
        '--catalog',
        '../catalog-base.json',
      ],
      { cwd: join(fixtures, 'head') },
    );
    expect(both.code).toBe(0);
    expect(both.stdout).toContain('Plan social (pipelines/social.yaml)');
    expect(both.stdout).toContain('Plan launch (pipelines/launch.yaml)');
    expect(both.stdout).toContain('Per month (nightly, 30 runs)');
    expect(both.stdout).toContain(
      'Total of 2 manifests: 62 credits per run; 1,548 credits per month (manifests with a schedule)',
    );
    const bad = join(dir, 'bad.yaml');
    await writeFile(
      bad,
      'version: 1\nname: bad\njobs:\n  - { id: a, kind: image, model: no-such-model, prompt: a cup }\n',
    );
    const invalid = await runCli(
      [
        'plan',
        'pipelines/social.yaml',
        bad,
        '--offline',
        '--catalog',
        '../catalog-base.json',
        '--format',
        'json',
      ],
      { cwd: join(fixtures, 'head') },
    );
    expect(invalid.code).toBe(2);
    expect(invalid.stdout).toBe('');
    expect(invalid.stderr).toContain('bad.yaml:4:');
  });

  it('a glob matching nothing: exit 2 with the way out; with --allow-empty an empty plan set; two empty sides are refused (#33.5)', async () => {
    const typo = await runCli(['plan', 'pipelnes/*.yaml', '--offline', '--catalog', 'none.json'], {
      cwd: join(fixtures, 'head'),
    });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('pipelnes/*.yaml: no manifest matches this glob');
    expect(typo.stderr).toContain('--allow-empty');
    const empty = join(dir, 'empty.json');
    // No manifest, so the catalog (missing here too) is never read.
    const none = await runCli(
      [
        'plan',
        'pipelnes/*.yaml',
        '--allow-empty',
        '--offline',
        '--catalog',
        'none.json',
        '--format',
        'json',
        '--out',
        empty,
      ],
      { cwd: join(fixtures, 'head') },
    );
    expect(none.code).toBe(0);
    expect(none.stderr).toContain('pipelnes/*.yaml: no manifest here');
    expect(JSON.parse(await readFile(empty, 'utf8'))).toMatchObject({ kind: 'runner-plan-set', plans: [] });
    const first = await runCli(['diff', empty, join(dir, 'head.json')]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('Catalogs: base none (no manifests)');
    expect(first.stdout).toContain('pipelines/launch.yaml (launch): added');
    const nothing = await runCli(['diff', empty, empty]);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('neither side has a manifest');
  });

  it('plan --format json --out F writes the JSON to F only and prints a summary (#33.6)', async () => {
    const one = join(dir, 'one.json');
    const single = await runCli(
      [
        'plan',
        'pipelines/social.yaml',
        '--offline',
        '--catalog',
        '../catalog-base.json',
        '--format',
        'json',
        '--out',
        one,
      ],
      { cwd: join(fixtures, 'head') },
    );
    expect(single.code).toBe(0);
    expect(single.stdout).not.toContain('{');
    expect(single.stdout).toContain(
      'Plan social (pipelines/social.yaml): 15 jobs in plan, 15 to run; 50 credits per run, 1,500 per month (nightly)',
    );
    expect(single.stdout).toContain(`The JSON report is in ${one}`);
    expect(JSON.parse(await readFile(one, 'utf8'))).toMatchObject({ pipeline: 'social' });
    const set = join(dir, 'set.json');
    const several = await runCli(
      [
        'plan',
        'pipelines/*.yaml',
        '--offline',
        '--catalog',
        '../catalog-base.json',
        '--format',
        'json',
        '--out',
        set,
      ],
      { cwd: join(fixtures, 'head') },
    );
    expect(several.code).toBe(0);
    expect(several.stdout).not.toContain('{');
    expect(several.stdout).toContain('Plan launch (pipelines/launch.yaml): 1 job in plan, 1 to run;');
    expect(several.stdout).toContain('Total of 2 manifests: 62 credits per run');
    expect(several.stdout).toContain(`The JSON plan set is in ${set}`);
    expect(JSON.parse(await readFile(set, 'utf8'))).toMatchObject({ kind: 'runner-plan-set' });
  });
});
