import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import { runCli } from './run-cli.js';
import { FAST_YES } from './apply-fixtures.js';

const TIME_SCALE = 0.005;

const manifest = (prompt = 'A detailed {{ style }} painting of a {{ animal }} by {{ brand }}') => `version: 1
name: authoring
vars: { brand: Acme }
jobs:
  - id: "img-{{ animal }}-{{ style }}"
    model: chatgpt-image-sangtao
    matrix: { animal: [fox, owl], style: [ink, oil] }
    prompt: ${prompt}
`;

interface StatusJson {
  jobs: { id: string; status: string; attempts: number }[];
}

describe('authoring features (built binary against the simulator)', () => {
  let simulator: Simulator;
  let env: Record<string, string>;
  let dir: string;
  let catalogFile: string;

  beforeAll(async () => {
    simulator = await startSimulator({ timeScale: TIME_SCALE, idempotencyWindowMs: 300_000 / TIME_SCALE });
    env = { MEDIAGEN_BASE_URL: simulator.baseUrl, MEDIAGEN_API_KEY: simulator.apiKey };
    dir = await mkdtemp(join(tmpdir(), 'runner-authoring-'));
    catalogFile = join(dir, 'catalog.json');
    await writeFile(catalogFile, (await runCli(['models', '--json'], { env })).stdout);
  });
  afterAll(() => simulator.close());

  it('applies exactly a saved plan, and refuses it once the price or the manifest changed', async () => {
    const file = join(dir, 'saved.yaml');
    await writeFile(file, manifest());
    const planFile = join(dir, 'reviewed-plan'); // no extension: told apart by content
    const planned = await runCli(
      [
        'plan',
        file,
        '--catalog',
        catalogFile,
        '--only',
        'img-fox-*',
        '--var',
        'brand=Zeta',
        '--out-plan',
        planFile,
      ],
      { env },
    );
    expect(planned.code).toBe(0);
    expect(planned.stdout).toContain('left out 2 jobs');
    expect((await stat(planFile)).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(await readFile(planFile, 'utf8')) as {
      schemaVersion: number;
      jobs: { id: string; prompt: string }[];
    };
    expect(saved.schemaVersion).toBe(2);
    expect(saved.jobs.map((job) => job.prompt)).toEqual([
      'A detailed ink painting of a fox by Zeta',
      'A detailed oil painting of a fox by Zeta',
    ]);

    // A price change in the catalog since the plan: refused, nothing created.
    const catalog = JSON.parse(await readFile(catalogFile, 'utf8')) as { slug: string; creditCost: number }[];
    const pricier = join(dir, 'pricier.json');
    await writeFile(
      pricier,
      JSON.stringify(
        catalog.map((m) => (m.slug === 'chatgpt-image-sangtao' ? { ...m, creditCost: m.creditCost + 1 } : m)),
      ),
    );
    const before = simulator.stats().jobsCreated;
    const refused = await runCli(['apply', planFile, '--catalog', pricier, ...FAST_YES], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/model chatgpt-image-sangtao's price changed: creditCost \d+ → \d+/);
    expect(simulator.stats().jobsCreated).toBe(before);

    const applied = await runCli(['apply', planFile, '--catalog', catalogFile, ...FAST_YES], { env });
    expect(applied.stderr).not.toContain('error');
    expect(applied.stderr).toContain('--only img-fox-* left out 2 jobs');
    expect(applied.code).toBe(0);
    expect(simulator.stats().jobsCreated).toBe(before + 2);

    await writeFile(file, `${manifest()}# edited\n`);
    const changed = await runCli(['apply', planFile, '--catalog', catalogFile, ...FAST_YES], { env });
    expect(changed.code).toBe(2);
    expect(changed.stderr).toContain('the manifest');
    expect(changed.stderr).toContain('No job was created.');
    expect(simulator.stats().jobsCreated).toBe(before + 2);
  });

  it('--replace runs one done job again; plan shows what changed field by field', async () => {
    const file = join(dir, 'replace.yaml');
    await writeFile(file, manifest());
    const first = await runCli(['apply', file, ...FAST_YES], { env });
    expect(first.code).toBe(0);
    const before = simulator.stats().jobsCreated;
    const replaced = await runCli(['apply', file, '--replace', 'img-owl-oil', ...FAST_YES], { env });
    expect(replaced.code).toBe(0);
    expect(simulator.stats().jobsCreated).toBe(before + 1);
    const view = JSON.parse(
      (await runCli(['status', file, '--json', '--only', 'img-owl-*'], { env })).stdout,
    ) as StatusJson;
    expect(view.jobs.map((job) => [job.id, job.attempts])).toEqual([
      ['img-owl-ink', 1],
      ['img-owl-oil', 2],
    ]);

    await writeFile(file, manifest('A detailed {{ style }} drawing of a {{ animal }} by {{ brand }}'));
    const plan = await runCli(['plan', file], { env });
    expect(plan.stdout).toContain('Changed since the last run (4)');
    expect(plan.stdout).toContain(
      '~ prompt: "A detailed ink painting of a fox by Acme" → "A detailed ink drawing of a fox by Acme"',
    );
  });

  it('refuses templates that read the API key and keeps its value out of every output', async () => {
    const key = 'sk-e2e-secret-0123456789';
    const file = join(dir, 'secret.yaml');
    await writeFile(
      file,
      `version: 1
name: secret
vars: { leaked: "${key}" }
jobs:
  - { id: a, model: chatgpt-image-sangtao, prompt: "A bright photo of {{ env.MEDIAGEN_API_KEY }}" }
  - { id: b, model: chatgpt-image-sangtao, prompt: "A bright studio photo of {{ leaked }} on a table" }
`,
    );
    const secretEnv = { ...env, MEDIAGEN_API_KEY: key };
    const validated = await runCli(['validate', file, '--catalog', catalogFile], { env: secretEnv });
    expect(validated.code).toBe(2);
    expect(validated.stderr).toContain(`${file}:5:`);
    expect(validated.stderr).toContain('secret-in-template');
    // The file is checked whole, so the redaction shows on a manifest without the refused template.
    const leaky = join(dir, 'leaky.yaml');
    await writeFile(leaky, (await readFile(file, 'utf8')).replace(/^ {2}- \{ id: a,.*\n/m, ''));
    const rendered = await runCli(['render', leaky], { env: secretEnv });
    expect(rendered.code).toBe(0);
    expect(rendered.stdout).toContain('[REDACTED]');
    for (const output of [validated, rendered]) expect(output.stdout + output.stderr).not.toContain(key);
  });

  it('init and schema write a manifest and a typed schema; new flags have --help', async () => {
    const file = join(dir, 'new-folder', 'init.yaml');
    const init = await runCli(['init', file, '--model', 'voiceover-standard', '--catalog', catalogFile]);
    expect(init.code).toBe(0);
    expect((await runCli(['validate', file, '--catalog', catalogFile])).code).toBe(0);
    expect(
      (await runCli(['init', file, '--model', 'voiceover-standard', '--catalog', catalogFile])).code,
    ).toBe(2);
    // Hints offer only models runner can run: never a scaffold that could not be applied.
    const noModel = await runCli(['init', join(dir, 'x.yaml'), '--catalog', catalogFile]);
    expect(noModel.code).toBe(2);
    expect(noModel.stderr).toContain('Models runner can run:');
    expect(noModel.stderr).toContain('voiceover-standard');
    expect(noModel.stderr).not.toContain('inpaint-edit');
    const typo = await runCli([
      'init',
      join(dir, 'x.yaml'),
      '--model',
      'inpaint-edt',
      '--catalog',
      catalogFile,
    ]);
    expect(typo.stderr).not.toContain('Did you mean "inpaint-edit"');
    const schema = await runCli(['schema', '--catalog', catalogFile]);
    expect(JSON.parse(schema.stdout)).toMatchObject({
      definitions: { job: { allOf: expect.any(Array) as unknown } },
    });

    // render warns as validate does about a var file setting an undeclared var; stdout stays the jobs.
    const varFile = join(dir, 'vars.yaml');
    await writeFile(varFile, 'brnd: Other\n');
    const manifestFile = join(dir, 'render-vars.yaml');
    await writeFile(manifestFile, manifest());
    const rendered = await runCli(['render', manifestFile, '--var-file', varFile, '--json']);
    expect(rendered.code).toBe(0);
    expect(rendered.stderr).toContain('undeclared-var');
    expect(rendered.stderr).toContain('did you mean "brand"?');
    expect(JSON.parse(rendered.stdout)).toMatchObject({ schemaVersion: 1 });

    const help = (await runCli(['plan', '--help'])).stdout;
    for (const flag of ['--only', '--exclude', '--replace', '--var', '--var-file', '--out-plan', '--show'])
      expect(help).toContain(flag);
  });
});
