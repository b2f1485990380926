import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyEncodings, startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import { FAST_YES, listFilesDeep, makeWorkDir } from './apply-fixtures.js';
import { runCli } from './run-cli.js';

const TIME_SCALE = 0.005;
const API_KEY = 'sk-ECHOCHECK-api-5e1d0c9b7a2f4e83';
const LEGACY_KEY = 'legacy-ECHOCHECK-7c2a90d4e61b35f8';
/** In both keys: also catches a partly cut key. */
const MARKER = 'ECHOCHECK';

/** A key typed into `--var` reaches the saved plan only redacted, like every other output (#24.5). */
describe('the API key in a saved plan', () => {
  let simulator: Simulator;
  let dir: string;
  beforeAll(async () => {
    simulator = await startSimulator({ timeScale: TIME_SCALE, apiKey: API_KEY });
    dir = await makeWorkDir('key-plan');
  });
  afterAll(async () => {
    await simulator.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('is redacted in plan --out-plan, and applying that plan pays each job once', async () => {
    const file = join(dir, 'pipeline.yaml');
    await writeFile(
      file,
      `version: 1
name: key-plan
vars:
  brand: Acme
jobs:
  - id: poster
    kind: image
    model: chatgpt-image-sangtao
    prompt: A detailed poster for {{ brand }} coffee on a marble counter at dawn
`,
    );
    const env = { MEDIAGEN_BASE_URL: simulator.baseUrl, MEDIAGEN_API_KEY: API_KEY };
    const planFile = join(dir, 'saved.plan.json');
    const stateDir = join(dir, 'state');
    const plan = await runCli(
      [
        'plan',
        file,
        '--var',
        `brand=${API_KEY}`,
        '--state-dir',
        stateDir,
        '--output',
        join(dir, 'out'),
        '--out-plan',
        planFile,
      ],
      { env },
    );
    expect(plan.code, plan.stderr).toBe(0);
    const saved = await readFile(planFile, 'utf8');
    expect(saved).not.toContain(API_KEY);
    expect(saved).toContain('[REDACTED]');
    expect(plan.stdout + plan.stderr).not.toContain(API_KEY);

    // The saved plan carries its state and output folders: apply needs none of the flags again.
    const apply = await runCli(['apply', planFile, ...FAST_YES], { env });
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout + apply.stderr).not.toContain(API_KEY);
    expect(simulator.stats().jobsCreated).toBe(1);
  });
});

/**
 * A service that echoes the keys in every error text and builds the API key into result URLs (#24.6):
 * nothing the runner writes or prints holds either key, and the results are still downloaded.
 */
describe('keys echoed by the service', () => {
  let simulator: Simulator;
  let dir: string;
  beforeAll(async () => {
    simulator = await startSimulator({
      timeScale: TIME_SCALE,
      seed: 11,
      apiKey: API_KEY,
      legacyApiKey: LEGACY_KEY,
      echoApiKey: true,
      faults: { rateLimit: 0.15, retryAfterSeconds: 0 },
    });
    dir = await makeWorkDir('key-echo');
  });
  afterAll(async () => {
    await simulator.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('reach no file, log, report or output of apply, status and report', async () => {
    const file = join(dir, 'pipeline.yaml');
    await writeFile(
      file,
      `version: 1
name: key-echo
defaults:
  kind: image
  model: chatgpt-image-sangtao
jobs:
  - id: "shot-{{ n }}"
    matrix: { n: [1, 2, 3] }
    prompt: A detailed studio photograph of coffee cup number {{ n }} on a marble counter
  - id: refused
    prompt: A detailed studio photograph of a teapot on a marble counter [[fail:CONTENT_REJECTED]]
`,
    );
    const env = {
      MEDIAGEN_BASE_URL: simulator.baseUrl,
      MEDIAGEN_API_KEY: API_KEY,
      GITHUB_STEP_SUMMARY: join(dir, 'step-summary.md'),
    };
    const stateDir = join(dir, 'state');
    const output = join(dir, 'out');
    const apply = await runCli(
      [
        'apply',
        file,
        ...FAST_YES,
        '--state-dir',
        stateDir,
        '--output',
        output,
        '--log-file',
        join(dir, 'apply.log'),
        '--junit',
        join(dir, 'junit.xml'),
      ],
      { env },
    );
    // One job fails on purpose (exit 1); the three others are done and downloaded.
    expect(apply.code, apply.stderr).toBe(1);
    expect(apply.stderr).toContain('CONTENT_REJECTED');
    expect(apply.stderr).toContain('[REDACTED]');
    const status = await runCli(['status', file, '--state-dir', stateDir, '--json'], { env });
    const view = JSON.parse(status.stdout) as { jobs: { id: string; status: string; files?: unknown[] }[] };
    expect(view.jobs.filter((job) => job.status === 'done')).toHaveLength(3);
    const statusText = await runCli(['status', file, '--state-dir', stateDir], { env });
    const report = await runCli(['report', file, '--state-dir', stateDir, '--out', join(dir, 'again.html')], {
      env,
    });

    const files = await listFilesDeep(dir);
    expect(files.filter((path) => path.endsWith('.png'))).toHaveLength(3);
    for (const name of [
      'journal.jsonl',
      'apply.log',
      'junit.xml',
      'step-summary.md',
      'results.json',
      'results.csv',
    ])
      expect(
        files.some((path) => path.endsWith(name)),
        name,
      ).toBe(true);
    const leaks: string[] = [];
    for (const path of files) {
      if ((await readFile(path)).toString('latin1').includes(MARKER)) leaks.push(path);
    }
    for (const [label, result] of Object.entries({ apply, status, statusText, report })) {
      if ((result.stdout + result.stderr).includes(MARKER)) leaks.push(label);
    }
    expect(leaks).toEqual([]);
    expect(simulator.stats().jobsCreated).toBe(4);
    // The echoes did happen: result URLs are journaled redacted, and retried 429s were logged.
    const journal = await readFile(files.find((path) => path.endsWith('journal.jsonl')) ?? '', 'utf8');
    expect(journal).toContain('/__results/k/[REDACTED]/');
    expect(simulator.stats().faultsInjected.rateLimit).toBeGreaterThan(0);
    expect(await readFile(join(dir, 'apply.log'), 'utf8')).toContain('[REDACTED]');
  });

  it('downloads a result whose URL held the key in a later apply, which holds only the redacted URL', async () => {
    const file = join(dir, 'later.yaml');
    await writeFile(
      file,
      `version: 1
name: key-echo-later
jobs:
  - id: later
    kind: image
    model: chatgpt-image-sangtao
    prompt: A detailed studio photograph of a milk jug on a marble counter
`,
    );
    const env = { MEDIAGEN_BASE_URL: simulator.baseUrl, MEDIAGEN_API_KEY: API_KEY };
    const common = ['--state-dir', join(dir, 'later-state'), '--output', join(dir, 'later-out'), ...FAST_YES];
    const createdBefore = simulator.stats().jobsCreated;
    const first = await runCli(['apply', file, ...common, '--no-download'], { env });
    expect(first.code, first.stderr).toBe(0);
    const polls = simulator.stats().requests['GET /jobs/{jobId}'] ?? 0;
    const second = await runCli(['apply', file, ...common], { env });
    expect(second.code, second.stderr).toBe(0);
    const files = await listFilesDeep(join(dir, 'later-out'));
    expect(files.filter((path) => path.endsWith('.png'))).toHaveLength(1);
    // The job was polled again for its real URL; nothing was created again.
    expect(simulator.stats().requests['GET /jobs/{jobId}'] ?? 0).toBeGreaterThan(polls);
    expect(simulator.stats().jobsCreated).toBe(createdBefore + 1);
    expect(first.stdout + first.stderr + second.stdout + second.stderr).not.toContain(MARKER);
  });
});

/**
 * Issue #32.2: a service that echoes both keys in every encoding (lower-case `%2b` as .NET writes it,
 * every byte percent-encoded, HTML entities, JSON `\u` escapes, base64) and builds the API key into
 * result URLs with lower-case `%2b`. No output holds any form of either key.
 */
describe('keys echoed in every encoding', () => {
  const apiKey = 'sk-ENCCHECK+api/5e1d0c9b7a2f4e83';
  const legacyKey = 'legacy-ENCCHECK+7c2a/90d4e61b35f8';
  let simulator: Simulator;
  let dir: string;
  beforeAll(async () => {
    simulator = await startSimulator({
      timeScale: TIME_SCALE,
      seed: 12,
      apiKey,
      legacyApiKey: legacyKey,
      echoApiKey: 'every-encoding',
      faults: { rateLimit: 0.15, retryAfterSeconds: 0 },
    });
    dir = await makeWorkDir('key-encodings');
  });
  afterAll(async () => {
    await simulator.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Each form of each key found in `text`, also once JSON's `\\` and HTML's `&amp;` are undone. */
  function findForms(text: string): string[] {
    const views = [text, text.replaceAll('\\\\', '\\'), text.replaceAll('&amp;', '&')];
    const found: string[] = [];
    for (const [label, key] of Object.entries({ api: apiKey, legacy: legacyKey })) {
      for (const [name, form] of Object.entries(keyEncodings(key))) {
        if (views.some((view) => view.toLowerCase().includes(form.toLowerCase())))
          found.push(`${label} ${name}`);
      }
    }
    if (views.some((view) => view.toUpperCase().includes('ENCCHECK'))) found.push('marker');
    return found;
  }

  it('reach no file, log, report or output of apply, status and report', async () => {
    const file = join(dir, 'pipeline.yaml');
    await writeFile(
      file,
      `version: 1
name: key-encodings
defaults:
  kind: image
  model: chatgpt-image-sangtao
jobs:
  - id: "shot-{{ n }}"
    matrix: { n: [1, 2] }
    prompt: A detailed studio photograph of coffee cup number {{ n }} on a marble counter
  - id: refused
    prompt: A detailed studio photograph of a teapot on a marble counter [[fail:CONTENT_REJECTED]]
`,
    );
    const env = {
      MEDIAGEN_BASE_URL: simulator.baseUrl,
      MEDIAGEN_API_KEY: apiKey,
      GITHUB_STEP_SUMMARY: join(dir, 'step-summary.md'),
    };
    const stateDir = join(dir, 'state');
    const apply = await runCli(
      [
        'apply',
        file,
        ...FAST_YES,
        '--state-dir',
        stateDir,
        '--output',
        join(dir, 'out'),
        '--log-file',
        join(dir, 'apply.log'),
        '--junit',
        join(dir, 'junit.xml'),
        '--report',
        join(dir, 'report.html'),
      ],
      { env },
    );
    expect(apply.code, apply.stderr).toBe(1);
    expect(apply.stderr).toContain('CONTENT_REJECTED');
    const status = await runCli(['status', file, '--state-dir', stateDir], { env });
    const report = await runCli(['report', file, '--state-dir', stateDir, '--out', join(dir, 'again.html')], {
      env,
    });
    const files = await listFilesDeep(dir);
    expect(files.filter((path) => path.endsWith('.png'))).toHaveLength(2);
    const leaks: string[] = [];
    for (const path of files) {
      for (const form of findForms((await readFile(path)).toString('latin1'))) leaks.push(`${path}: ${form}`);
    }
    for (const [label, result] of Object.entries({ apply, status, report })) {
      for (const form of findForms(result.stdout + result.stderr)) leaks.push(`${label}: ${form}`);
    }
    expect(leaks).toEqual([]);
    // The echoes did happen: the failed job's text and the result URLs were redacted.
    const journal = await readFile(files.find((path) => path.endsWith('journal.jsonl')) ?? '', 'utf8');
    expect(journal).toContain('/__results/k/[REDACTED]/');
    expect(journal).toContain('[REDACTED]');
  });
});
