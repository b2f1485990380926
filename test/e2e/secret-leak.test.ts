import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import {
  FAST_POLLS,
  listFilesDeep,
  makeWorkDir,
  readStatus,
  writeImageMatrixManifest,
  writeKeyFiles,
} from './apply-fixtures.js';
import { runCli, startCli, type CliResult } from './run-cli.js';

const TIME_SCALE = 0.006;
const IDEMPOTENCY_WINDOW_MS = Math.ceil(300_000 / TIME_SCALE);
const API_KEY = 'sk-LEAKCHECK-api-7f3c9e21b4d85a60';
const LEGACY_KEY = 'legacy-LEAKCHECK-9b1d47e0c2a8f356';
const WRONG_KEY = 'sk-WRONGKEY-LEAKCHECK-0d5e8a';
/** In every key: also catches a partly masked or truncated key (`sk-LEAKCHECK-…`). */
const MARKER = 'LEAKCHECK';
const SECRETS = [API_KEY, LEGACY_KEY, WRONG_KEY, MARKER];

/** Every secret (or secret fragment) found in `text`. */
function findSecrets(text: string): string[] {
  return SECRETS.filter((secret) => text.includes(secret));
}

/**
 * The service API key (and the legacy key the balance endpoint returns, spec 2.5) must never reach
 * stdout, stderr, logs, state files, downloads or reports: every command is run with the key in the
 * environment and in an `--api-key-file`, and every byte it leaves behind is searched.
 */
describe('no API key leaks into any output or file', () => {
  let simulator: Simulator;
  let workDir: string;
  let secretsDir: string;
  let keyFile: string;
  let wrongKeyFile: string;
  const outputs: { label: string; result: CliResult }[] = [];

  beforeAll(async () => {
    simulator = await startSimulator({
      timeScale: TIME_SCALE,
      seed: 99,
      apiKey: API_KEY,
      legacyApiKey: LEGACY_KEY,
      idempotencyWindowMs: IDEMPOTENCY_WINDOW_MS,
    });
    workDir = await makeWorkDir('leak');
    // The key files live apart from the folder that is searched: they are the only place a key may be.
    secretsDir = await makeWorkDir('leak-secrets');
    ({ 'api-key': keyFile, 'wrong-key': wrongKeyFile } = await writeKeyFiles(secretsDir, {
      'api-key': API_KEY,
      'wrong-key': WRONG_KEY,
    }));
  });
  afterAll(async () => {
    await simulator.close();
    await rm(workDir, { recursive: true, force: true });
    await rm(secretsDir, { recursive: true, force: true });
  });

  /** Runs the CLI and keeps its output for the final search. */
  async function run(label: string, args: string[], env: Record<string, string>): Promise<CliResult> {
    const result = await runCli(args, { env, cwd: workDir, timeoutMs: 60_000 });
    outputs.push({ label, result });
    return result;
  }

  const modes = [
    { mode: 'env', auth: () => ({ args: [], env: { MEDIAGEN_API_KEY: API_KEY } }) },
    { mode: 'key-file', auth: () => ({ args: ['--api-key-file', keyFile], env: {} }) },
  ] as const;

  it.each(modes)(
    'runs every command with the key from $mode',
    async ({ mode, auth }) => {
      const { args: authArgs, env: authEnv } = auth();
      const env = { MEDIAGEN_BASE_URL: simulator.baseUrl, ...authEnv };
      const dir = join(workDir, mode);
      await mkdir(dir, { recursive: true });
      const { file, jobIds } = await writeImageMatrixManifest(dir, {
        name: `leak-${mode}`,
        subjects: ['fox', 'owl'],
        styles: ['watercolor', 'pencil'],
      });
      const stateDir = join(dir, 'state');
      const stateArgs = ['--state-dir', stateDir];
      const ok = async (label: string, args: string[]) => {
        const result = await run(`${mode} ${label}`, [...args, ...authArgs], env);
        expect(result.code, `${label}: ${result.stderr}`).toBe(0);
        return result;
      };

      const balanceText = await ok('balance', ['balance']);
      expect(balanceText.stdout).toMatch(/available/);
      const balanceJson = await ok('balance --json', ['balance', '--json']);
      expect(JSON.parse(balanceJson.stdout)).not.toHaveProperty('apiKey');
      await ok('models', ['models']);
      await ok('models --json', ['models', '--json']);
      await ok('validate', ['validate', file]);
      for (const format of ['text', 'json', 'markdown']) {
        await ok(`plan ${format}`, [
          'plan',
          file,
          '--format',
          format,
          '--out',
          join(dir, `plan.${format}`),
          ...stateArgs,
        ]);
      }
      const apply = await ok('apply', [
        'apply',
        file,
        '--yes',
        '--json',
        '--log-file',
        join(dir, 'apply.log'),
        ...stateArgs,
        '--output',
        join(dir, 'out'),
        ...FAST_POLLS,
      ]);
      expect(JSON.parse(apply.stdout)).toHaveProperty('exitReason', 'ok');
      // Plan again after the run: the report now reads the journal.
      await ok('plan after apply', [
        'plan',
        file,
        '--format',
        'json',
        '--out',
        join(dir, 'plan-after.json'),
        ...stateArgs,
      ]);
      await ok('status', ['status', file, ...stateArgs]);
      await ok('status --json', ['status', file, ...stateArgs, '--json']);
      const view = await readStatus(file, stateDir, env);
      expect(view.totals.done).toBe(jobIds.length);
      expect(await readFile(join(dir, 'apply.log'), 'utf8')).toMatch(/"type":"request"/);
    },
    60_000,
  );

  it('does not echo a wrong key rejected with 401, from the env or a key file', async () => {
    const dir = join(workDir, 'wrong');
    await mkdir(dir, { recursive: true });
    const { file } = await writeImageMatrixManifest(dir, {
      name: 'leak-wrong',
      subjects: ['fox'],
      styles: ['watercolor'],
    });
    const wrongModes = [
      { label: 'env', args: [], env: { MEDIAGEN_BASE_URL: simulator.baseUrl, MEDIAGEN_API_KEY: WRONG_KEY } },
      {
        label: 'key-file',
        args: ['--api-key-file', wrongKeyFile],
        env: { MEDIAGEN_BASE_URL: simulator.baseUrl },
      },
    ];
    for (const mode of wrongModes) {
      for (const command of [
        ['balance'],
        ['balance', '--json'],
        ['models'],
        ['plan', file, '--format', 'json', '--out', join(dir, `plan-${mode.label}.json`)],
        [
          'apply',
          file,
          '--yes',
          '--json',
          '--state-dir',
          join(dir, `state-${mode.label}`),
          '--log-file',
          join(dir, `apply-${mode.label}.log`),
        ],
      ]) {
        const result = await run(
          `wrong ${mode.label} ${command.join(' ')}`,
          [...command, ...mode.args],
          mode.env,
        );
        expect(result.code, `${command.join(' ')}: ${result.stderr}`).toBe(4);
        expect(result.stderr).toContain('401');
      }
    }
  }, 60_000);

  it('keeps the key out of the journal and log when it is revoked in the middle of a run', async () => {
    const dir = join(workDir, 'revoked');
    await mkdir(dir, { recursive: true });
    const revocable = await startSimulator({
      timeScale: TIME_SCALE,
      seed: 5,
      apiKey: API_KEY,
      legacyApiKey: LEGACY_KEY,
      idempotencyWindowMs: IDEMPOTENCY_WINDOW_MS,
    });
    try {
      const { file } = await writeImageMatrixManifest(dir, {
        name: 'leak-revoked',
        subjects: ['fox', 'owl', 'bear', 'heron'],
        styles: ['watercolor', 'pencil', 'oil'],
      });
      const cli = startCli(
        [
          'apply',
          file,
          '--yes',
          '--state-dir',
          join(dir, 'state'),
          '--output',
          join(dir, 'out'),
          '--log-file',
          join(dir, 'apply.log'),
          '--poll-interval',
          '20-40',
          '--first-poll',
          '30',
        ],
        {
          env: { MEDIAGEN_BASE_URL: revocable.baseUrl, MEDIAGEN_API_KEY: API_KEY },
          cwd: workDir,
          timeoutMs: 60_000,
        },
      );
      // Revoke once the first job exists, so the 401 arrives mid-run (creates, polls or downloads).
      for (let waited = 0; revocable.stats().jobsCreated === 0 && waited < 20_000; waited += 10) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      revocable.revokeApiKey();
      const result = await cli.result;
      outputs.push({ label: 'revoked mid-run apply', result });
      expect(result.code, result.stderr).toBe(4);
    } finally {
      await revocable.close();
    }
  }, 60_000);

  it('keeps the key out of the errors of a failing service (HTTP 500s, dropped connections)', async () => {
    const failing = await Promise.all(
      [{ serverError: 1 }, { reset: 1 }].map((faults) =>
        startSimulator({ timeScale: TIME_SCALE, seed: 8, apiKey: API_KEY, legacyApiKey: LEGACY_KEY, faults }),
      ),
    );
    try {
      const results = await Promise.all(
        failing.map((service, index) =>
          run(`failing service ${index}`, ['balance', '--log-file', join(workDir, `failing-${index}.log`)], {
            MEDIAGEN_BASE_URL: service.baseUrl,
            MEDIAGEN_API_KEY: API_KEY,
          }),
        ),
      );
      for (const result of results) {
        expect(result.code, result.stderr).toBe(1);
        expect(result.stderr).toContain('GET /account/balance');
      }
    } finally {
      await Promise.all(failing.map((service) => service.close()));
    }
  }, 60_000);

  it('left no key in any stdout, stderr, log, state file, download or report', async () => {
    expect(outputs.length).toBeGreaterThanOrEqual(30);
    const leaks: string[] = [];
    for (const { label, result } of outputs) {
      for (const secret of findSecrets(result.stdout)) leaks.push(`stdout of ${label}: ${secret}`);
      for (const secret of findSecrets(result.stderr)) leaks.push(`stderr of ${label}: ${secret}`);
    }
    const files = await listFilesDeep(workDir);
    // The searched tree holds what the runs wrote: journals, locks' leftovers, logs, downloads, reports.
    expect(files.some((path) => path.endsWith('journal.jsonl'))).toBe(true);
    expect(files.some((path) => path.endsWith('.log'))).toBe(true);
    expect(files.some((path) => path.endsWith('.png'))).toBe(true);
    expect(files.some((path) => path.endsWith('plan.markdown'))).toBe(true);
    for (const path of files) {
      const text = (await readFile(path)).toString('latin1');
      for (const secret of findSecrets(text)) leaks.push(`${path}: ${secret}`);
    }
    expect(leaks).toEqual([]);
  });
});
