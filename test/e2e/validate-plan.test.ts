import { mkdtemp, readFile, writeFile, copyFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import { runCli } from './run-cli.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));

const imageManifest = (budget: number, count = 3) => `version: 1
name: e2e-images
budget: ${budget}
defaults: { kind: image, model: chatgpt-image-sangtao }
jobs:
  - id: "shot-{{ n }}"
    matrix: { n: [${Array.from({ length: count }, (_, i) => i + 1).join(', ')}] }
    prompt: A detailed studio photograph of coffee cup number {{ n }} on a marble counter
    params: { resolution: 2K, aspectRatio: "1:1" }
`;

describe('runner validate and plan (built binary)', () => {
  let simulator: Simulator;
  let env: Record<string, string>;
  let dir: string;
  let catalogFile: string;

  beforeAll(async () => {
    // No subscription allowance: every image job is paid in credits, so the figures are easy to check.
    simulator = await startSimulator({
      timeScale: 0.01,
      account: { freeCredit: 10, purchasedCredit: 5, subscriptionImageQuota: 0 },
    });
    env = { MEDIAGEN_BASE_URL: simulator.baseUrl, MEDIAGEN_API_KEY: simulator.apiKey };
    dir = await mkdtemp(join(tmpdir(), 'runner-e2e-'));
    const models = await runCli(['models', '--json'], { env });
    catalogFile = join(dir, 'catalog.json');
    await writeFile(catalogFile, models.stdout);
  });
  afterAll(() => simulator.close());

  it('accepts every example pipeline', async () => {
    for (const name of ['demo', 'nightly-social', 'video-promo']) {
      const result = await runCli([
        'validate',
        join(repo, 'pipelines', `${name}.yaml`),
        '--catalog',
        catalogFile,
      ]);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/is valid: \d+ jobs?\./);
    }
  });

  it('reports every problem at once with file:line:col, job and expectation, and exits 2', async () => {
    const file = join(dir, 'broken.yaml');
    await writeFile(
      file,
      `version: 1
name: broken
jobs:
  - id: hero
    model: chatgpt-image-sangtao
    prompt: A watercolor painting of a lighthouse at dawn over a calm sea
    params: { resolution: 4K, aspectRation: "16:9" }
  - id: promo
    kind: voiceover-video
    model: voiceover-standart
    prompt: A short promotional video for the spring menu
`,
    );
    const result = await runCli(['validate', file, '--catalog', catalogFile]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `${file}:7:27 error [hero] invalid-param: param "resolution" must be one of "1K", "2K"; received "4K" (string)`,
    );
    expect(result.stderr).toContain(`${file}:7:31`);
    expect(result.stderr).toContain('did you mean "aspectRatio"?');
    expect(result.stderr).toContain(`${file}:10:12 error [promo] unknown-model`);
    expect(result.stderr).toContain('did you mean "voiceover-standard"?');
    expect(result.stderr).toContain('3 errors, 0 warnings');
  });

  it('reports schema, template and catalog errors of different jobs in one run', async () => {
    const file = join(dir, 'mixed-errors.yaml');
    await writeFile(
      file,
      `version: 1
name: mixed
defaults: { model: chatgpt-image-sangtao }
jobs:
  - id: bad-param
    prompt: A watercolor painting of a lighthouse at dawn over a calm sea
    params: { dpi: 5000 }
  - id: bad-key
    promt: A watercolor painting of a harbour at night
  - id: "bad-var-{{ colour }}"
    prompt: A watercolor painting of a fishing boat in the fog
`,
    );
    const result = await runCli(['validate', file, '--catalog', catalogFile]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file}:7:20 error [bad-param] invalid-param`);
    expect(result.stderr).toContain(`${file}:9:5 error unknown-key: unknown key "promt"`);
    expect(result.stderr).toMatch(new RegExp(`${file}:10:\\d+ error .*undefined-variable`));
    expect(result.stderr).toContain('3 errors, 0 warnings');
  });

  it('reports the other mistakes of a manifest whose matrix explodes in the same run (#33.10)', async () => {
    const file = join(dir, 'exploding.yaml');
    await writeFile(
      file,
      `version: 1
name: exploding
maxJobs: 10
defaults: { model: chatgpt-image-sangtao }
jobs:
  - id: "shot-{{ a }}-{{ b }}"
    matrix: { a: [1, 2, 3, 4], b: [1, 2, 3, 4] }
    prompt: A watercolor painting of a {{ colour }} lighthouse at dawn
  - id: bad-param
    prompt: A watercolor painting of a harbour at night over a calm sea
    params: { dpi: 5000 }
`,
    );
    const result = await runCli(['validate', file, '--catalog', catalogFile]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('too-many-jobs');
    expect(result.stderr).toMatch(new RegExp(`${file}:8:\\d+ error .*undefined-variable`));
    expect(result.stderr).toContain(`${file}:11:20 error [bad-param] invalid-param`);
  });

  it('prints issues as JSON with --json', async () => {
    const file = join(dir, 'typo.yaml');
    await writeFile(
      file,
      'version: 1\nname: typo\njobs:\n  - id: a\n    model: chatgpt-image-sangtao\n    promt: hello\n',
    );
    const result = await runCli(['validate', file, '--catalog', catalogFile, '--json']);
    expect(result.code).toBe(2);
    const report = JSON.parse(result.stdout) as { valid: boolean; issues: { location: { line: number } }[] };
    expect(report.valid).toBe(false);
    expect(report.issues[0]?.location.line).toBe(6);
  });

  it('creates no job and spends nothing on invalid input', async () => {
    const before = simulator.stats();
    const file = join(dir, 'invalid-apply.yaml');
    await writeFile(
      file,
      'version: 1\nname: x\njobs:\n  - id: a\n    model: nope\n    prompt: A lighthouse\n',
    );
    const result = await runCli(['plan', file], { env });
    expect(result.code).toBe(2);
    const after = simulator.stats();
    expect(after.jobsCreated).toBe(before.jobsCreated);
    expect(after.creditsCharged).toBe(before.creditsCharged);
  });

  it('plans within the balance and budget: exit 0 with the figures', async () => {
    const file = join(dir, 'fits.yaml');
    await writeFile(file, imageManifest(100, 3));
    const result = await runCli(['plan', file, '--format', 'json'], { env });
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as {
      schemaVersion: number;
      jobs: { total: number };
      credits: { needed: number };
      balance: { availableCredit: number };
      verdict: { status: string };
    };
    expect(report.schemaVersion).toBe(1);
    expect(report.jobs.total).toBe(3);
    expect(report.credits.needed).toBe(12);
    expect(report.balance.availableCredit).toBe(15);
    expect(report.verdict.status).toBe('fits');
  });

  it('exits 3 when the plan needs more than the available credit', async () => {
    const file = join(dir, 'short.yaml');
    await writeFile(file, imageManifest(1000, 5));
    const result = await runCli(['plan', file], { env });
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/needs 20 credits/);
  });

  it('exits 3 when the plan is over the manifest budget', async () => {
    const file = join(dir, 'budget.yaml');
    await writeFile(file, imageManifest(5, 2));
    const result = await runCli(['plan', file, '--format', 'json'], { env });
    expect(result.code).toBe(3);
    expect((JSON.parse(result.stdout) as { verdict: { status: string } }).verdict.status).toBe('over-budget');
  });

  it('plans offline from a saved catalog, writes --out and the GitHub step summary', async () => {
    const file = join(dir, 'offline.yaml');
    await writeFile(file, imageManifest(100, 2));
    const out = join(dir, 'plan.md');
    const summary = join(dir, 'summary.md');
    const result = await runCli(
      ['plan', file, '--catalog', catalogFile, '--offline', '--format', 'markdown', '--out', out],
      { env: { GITHUB_STEP_SUMMARY: summary } },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('## Plan `e2e-images`');
    expect(await readFile(out, 'utf8')).toContain('## Plan `e2e-images`');
    expect(await readFile(summary, 'utf8')).toContain('## Plan `e2e-images`');
  });

  it('finds local reference images relative to the manifest and rejects non-images', async () => {
    const sub = join(dir, 'refs');
    await mkdir(join(sub, 'assets'), { recursive: true });
    await copyFile(join(repo, 'pipelines/assets/logo.png'), join(sub, 'assets/logo.png'));
    await writeFile(join(sub, 'assets/notes.png'), 'this is text, not an image');
    const manifest = (ref: string) =>
      `version: 1\nname: refs\njobs:\n  - id: a\n    model: chatgpt-image-sangtao\n    prompt: A watercolor painting of a lighthouse at dawn\n    params: { referenceImages: [${ref}] }\n`;
    await writeFile(join(sub, 'good.yaml'), manifest('./assets/logo.png'));
    await writeFile(join(sub, 'bad.yaml'), manifest('./assets/notes.png'));
    const good = await runCli(['validate', join(sub, 'good.yaml'), '--catalog', catalogFile]);
    expect(good.code).toBe(0);
    const bad = await runCli(['validate', join(sub, 'bad.yaml'), '--catalog', catalogFile]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('notes.png');
  });
});
