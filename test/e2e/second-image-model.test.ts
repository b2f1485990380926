import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import { IMAGE_MODEL, makeWorkDir, simulatorEnv } from './apply-fixtures.js';
import { runCli } from './run-cli.js';

/**
 * A catalog with a second image model (#33.16): spec 4.3's image job endpoint takes only the
 * subscription image model's slug, so a job of another `image` model would be refused by the service at
 * its create (HTTP 400). validate, plan and apply refuse it up front, naming the model, the endpoint's
 * rule and the catalog entry; nothing is created.
 */
describe('a manifest with a second image model', () => {
  let simulator: Simulator;
  let env: Record<string, string>;
  let dir: string;
  let manifest: string;

  beforeAll(async () => {
    simulator = await startSimulator({
      timeScale: 0.005,
      secondImageModel: 'flux-lite',
      account: { subscriptionImageQuota: 0 },
    });
    env = simulatorEnv(simulator);
    dir = await makeWorkDir('second-image-model');
    manifest = join(dir, 'two-models.yaml');
    await writeFile(
      manifest,
      [
        'version: 1',
        'name: two-models',
        'jobs:',
        '  - id: banner',
        '    kind: image',
        `    model: ${IMAGE_MODEL}`,
        '    prompt: A wide banner of a lighthouse on a cliff at dusk, painted in thick oil strokes',
        '  - id: sprite',
        '    kind: image',
        '    model: flux-lite',
        '    prompt: A small pixel art sprite of a lighthouse keeper holding a lantern at night',
        '    params: { style: pixel }',
        '',
      ].join('\n'),
      'utf8',
    );
  });
  afterAll(() => simulator.close());

  it('the simulator lists both, and its image endpoint refuses the second (spec 4.3)', async () => {
    const models = await runCli(['models', '--category', 'image', '--json'], { env });
    expect(models.code, models.stderr).toBe(0);
    const slugs = (JSON.parse(models.stdout) as { slug: string; creditCost: number }[]).map((m) => [
      m.slug,
      m.creditCost,
    ]);
    expect(slugs).toEqual([
      [IMAGE_MODEL, 4],
      ['flux-lite', 6],
    ]);
    const refused = await fetch(`${simulator.baseUrl}/agents/jobs/create`, {
      method: 'POST',
      headers: { 'X-Api-Key': simulator.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        model: 'flux-lite',
        prompt: 'A lighthouse on a cliff at dusk in thick oil strokes',
      }),
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ success: false, errorCode: 'INVALID_MODEL' });
  });

  const RULE =
    /two-models\.yaml:\d+:\d+.*sprite.*model "flux-lite" \("Flux Lite" in the catalog: category image, 6 credits\) cannot be created by kind "image": the image job endpoint \(POST \/agents\/jobs\/create, spec 4\.3\) takes only the subscription image model "chatgpt-image-sangtao"/s;

  it('validate with the saved catalog names the model, the rule and the catalog entry (exit 2)', async () => {
    const catalog = join(dir, 'catalog.json');
    const saved = await runCli(['models', '--json'], { env });
    await writeFile(catalog, saved.stdout, 'utf8');
    const result = await runCli(['validate', manifest, '--catalog', catalog]);
    expect(result.code, result.stdout + result.stderr).toBe(2);
    expect(result.stdout + result.stderr).toMatch(RULE);
    expect(result.stdout + result.stderr).toMatch(/use model: chatgpt-image-sangtao/);
    // The job of the subscription model is not blamed.
    expect(result.stdout + result.stderr).not.toMatch(/banner.*error/);
  });

  it('plan and apply refuse it before anything is created', async () => {
    const plan = await runCli(['plan', manifest], { env, cwd: dir });
    expect(plan.code, plan.stdout + plan.stderr).toBe(2);
    expect(plan.stdout + plan.stderr).toMatch(RULE);
    const apply = await runCli(['apply', manifest, '--yes'], { env, cwd: dir });
    expect(apply.code, apply.stdout + apply.stderr).toBe(2);
    expect(apply.stdout + apply.stderr).toMatch(RULE);
    expect(simulator.stats().jobsCreated).toBe(0);
  });
});
