import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultsIndex } from '../../src/report/results-index.js';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import { runCli } from './run-cli.js';
import { FAST_YES } from './apply-fixtures.js';

const TIME_SCALE = 0.005;

/** apply's results index, HTML report, JUnit and step summary; `runner report`; validate/plan under CI. */
describe('run outputs of the built CLI against the simulator', () => {
  let simulator: Simulator;
  let env: Record<string, string>;
  let dir: string;
  let manifest: string;
  let catalogFile: string;

  beforeAll(async () => {
    simulator = await startSimulator({ timeScale: TIME_SCALE, idempotencyWindowMs: 300_000 / TIME_SCALE });
    env = { MEDIAGEN_BASE_URL: simulator.baseUrl, MEDIAGEN_API_KEY: simulator.apiKey };
    dir = await mkdtemp(join(tmpdir(), 'runner-outputs-'));
    manifest = join(dir, 'outputs.yaml');
    await writeFile(
      manifest,
      `version: 1
name: outputs
defaults: { kind: image, model: chatgpt-image-sangtao }
jobs:
  - id: "ad-{{ product }}"
    matrix: { product: [latte, mocha] }
    prompt: A watercolor advertisement of a {{ product }} on a wooden table, made {{ date }}
    params: { aspectRatio: '4:3' }
  - id: vague
    prompt: A detailed advertisement of a latte on a wooden table [[fail:PROMPT_UNCLEAR]]
`,
    );
    catalogFile = join(dir, 'catalog.json');
    await writeFile(catalogFile, (await runCli(['models', '--json'], { env })).stdout);
  });
  afterAll(() => simulator.close());

  it('apply writes results.json/csv beside the downloads, the report, JUnit and the step summary', async () => {
    const summaryFile = join(dir, 'step-summary.md');
    const junit = join(dir, 'junit.xml');
    const result = await runCli(['apply', manifest, ...FAST_YES, '--run', 'n1', '--junit', junit], {
      env: { ...env, GITHUB_STEP_SUMMARY: summaryFile },
    });
    expect(result.code, result.stderr).toBe(1);
    const outputDir = join(dir, 'runner-output', 'outputs', 'n1');
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe(`Report: ${join(outputDir, 'report.html')}`);

    const index = JSON.parse(await readFile(join(outputDir, 'results.json'), 'utf8')) as ResultsIndex;
    expect(index).toMatchObject({ schemaVersion: 2, pipeline: 'outputs', runId: 'n1', axes: ['product'] });
    expect(index.results.map((row) => [row.id, row.status, row.file, row.matrix])).toEqual([
      ['ad-latte', 'done', 'ad-latte.png', { product: 'latte' }],
      ['ad-mocha', 'done', 'ad-mocha.png', { product: 'mocha' }],
      ['vague', 'failed', undefined, {}],
    ]);
    expect(index.results[2]).toMatchObject({
      failureKind: 'PROMPT_UNCLEAR',
      attempts: 1,
      credits: 0,
      advice: 'The description is too vague: change the prompt.',
    });
    for (const row of index.results.filter((candidate) => candidate.status === 'done')) {
      const bytes = await readFile(join(outputDir, row.file ?? ''));
      expect(row.bytes).toBe(bytes.length);
      expect(row.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(row.resultUrl?.startsWith(simulator.baseUrl.replace(/\/api\/v2$/, ''))).toBe(true);
      expect(Date.parse(row.resultUrlExpiresAt ?? '') - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
      expect(row.prompt).toMatch(
        /^A watercolor advertisement of a (latte|mocha) on a wooden table, made \d{4}-/,
      );
    }
    const csv = (await readFile(join(outputDir, 'results.csv'), 'utf8')).split('\r\n');
    expect(csv[0]?.startsWith('\uFEFFid,fileIndex,status,')).toBe(true);
    expect(csv[0]?.endsWith(',matrix.product')).toBe(true);
    expect(csv[3]?.startsWith('vague,,failed,')).toBe(true);
    expect(csv).toHaveLength(5);

    const xml = await readFile(junit, 'utf8');
    expect(xml).toContain('tests="3" failures="1" errors="0" skipped="0"');
    expect(xml).toMatch(/name="vague"[^>]*>\s*<failure type="PROMPT_UNCLEAR"/);
    expect(xml).toContain('advice: The description is too vague: change the prompt.');

    const summary = await readFile(summaryFile, 'utf8');
    expect(summary).toContain('## runner apply: outputs (run n1)');
    expect(summary).toContain('| vague | failed | PROMPT_UNCLEAR |');
    const html = await readFile(join(outputDir, 'report.html'), 'utf8');
    expect(html).toContain('"id":"vague"');
    expect(html).not.toContain(simulator.apiKey);
    expect(summary + xml + csv.join('\n')).not.toContain(simulator.apiKey);
  });

  it('`runner report` rebuilds the page of a run from its state, read-only', async () => {
    const out = join(dir, 'again', 'page.html');
    const result = await runCli(['report', manifest, '--run', 'n1', '--out', out], { env: {} });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe(`Report: ${out}`);
    const html = await readFile(out, 'utf8');
    expect(html).toContain('"href":"../runner-output/outputs/n1/ad-latte.png"');
    expect(html).toContain('"failureKind":"PROMPT_UNCLEAR"');
  });

  it('`report --out DIR` writes DIR/report.html, for a folder that exists, a path ending in a slash or a new name with no extension', async () => {
    // Before, an existing folder failed on the page's temporary file ("… is a folder") and `review/`
    // became a file named `review`, the page's links pointing one folder too high.
    const existing = join(dir, 'review-existing');
    await mkdir(existing);
    const fresh = join(dir, 'review-fresh');
    // A page written as a file named `review-named` opened in no browser by a double click.
    const bare = join(dir, 'review-named');
    for (const [named, folder] of [
      [existing, existing],
      [`${fresh}/`, fresh],
      [bare, bare],
    ] as const) {
      const result = await runCli(['report', manifest, '--run', 'n1', '--out', named], { env: {} });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout.trim()).toBe(`Report: ${join(folder, 'report.html')}`);
      const html = await readFile(join(folder, 'report.html'), 'utf8');
      expect(html).toContain('"href":"../runner-output/outputs/n1/ad-latte.png"');
    }
  });

  it('--no-report leaves the page out; manifest `report: PATH` moves it', async () => {
    const noFlag = await runCli(
      ['apply', manifest, ...FAST_YES, '--run', 'n2', '--no-report', '--output', join(dir, 'o2')],
      {
        env,
      },
    );
    expect(noFlag.stdout).not.toContain('Report:');
    expect(existsSync(join(dir, 'o2', 'report.html'))).toBe(false);
    expect(existsSync(join(dir, 'o2', 'results.json'))).toBe(true);

    const moved = join(dir, 'moved.yaml');
    await writeFile(
      moved,
      (await readFile(manifest, 'utf8')).replace('name: outputs', 'name: moved\nreport: pages/r.html'),
    );
    const result = await runCli(['apply', moved, ...FAST_YES], { env });
    expect(result.stdout).toContain(`Report: ${join(dir, 'pages', 'r.html')}`);
    expect(existsSync(join(dir, 'pages', 'r.html'))).toBe(true);
  });

  it('validate and plan annotate issues under GitHub Actions; validate --strict fails on warnings', async () => {
    const file = join(dir, 'warned.yaml');
    await writeFile(
      file,
      'version: 1\nname: warned\njobs:\n  - id: a\n    model: chatgpt-image-sangtao\n    prompt: a cat\n',
    );
    const ci = { GITHUB_ACTIONS: 'true' };
    const plain = await runCli(['validate', file, '--catalog', catalogFile], { env: ci });
    expect(plain.code).toBe(0);
    expect(plain.stderr).toMatch(new RegExp(`^::warning file=${file},line=6,col=\\d+,title=[^:]+::`, 'm'));
    const strict = await runCli(['validate', file, '--catalog', catalogFile, '--strict', '--json']);
    expect(strict.code).toBe(2);
    expect(JSON.parse(strict.stdout)).toMatchObject({
      schemaVersion: 1,
      strict: true,
      valid: false,
      warnings: 1,
    });

    const broken = join(dir, 'broken.yaml');
    await writeFile(
      broken,
      'version: 1\nname: broken\njobs:\n  - id: a\n    model: chatgpt-image-sangtao\n    prompt: A watercolor cat on a sofa\n    params: { dpi: 5000 }\n',
    );
    const plan = await runCli(['plan', broken, '--catalog', catalogFile, '--offline'], { env: ci });
    expect(plan.code).toBe(2);
    expect(plan.stderr).toContain(`::error file=${broken},line=7,col=20,title=invalid-param (a)::`);
    const outsideCi = await runCli(['plan', broken, '--catalog', catalogFile, '--offline']);
    expect(outsideCi.stderr).not.toContain('::error');
  });
});
