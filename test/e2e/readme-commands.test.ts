import { spawn } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { binPath, cliEnv } from './run-cli.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** A fenced `sh` block of the README or of a page under docs/ that invokes runner. */
interface Block {
  /** Its first line, which names it below. */
  first: string;
  /** The file it is in, from the repository root (`README.md`, `docs/state.md`). */
  file: string;
  /** The line of its opening fence in that file. */
  line: number;
  text: string;
}

/**
 * The README's blocks that are not run, each with the reason. A block that invokes runner and is in
 * neither this list nor {@link RUN} fails the test, and so does an entry here whose block is gone.
 */
const SKIPPED = new Map([
  [
    'export PGPASSWORD=...                      # or a ~/.pgpass line; never in the URL',
    'needs a PostgreSQL server at db.example with a password (postgres-state.test.ts runs apply and status on PostgreSQL)',
  ],
  [
    'runner state push pipelines/nightly-social.yaml --run "$RUN" --state-dir .runner-state --state "$RUNNER_STATE_URL"',
    'needs a PostgreSQL state URL (postgres-state.test.ts and state-check.test.ts cover push, pull and lease)',
  ],
]);

/** How a block is run: against the simulator (`service`) or with no service and no key (`offline`). */
interface RunSpec {
  env: 'service' | 'offline';
  /** Placeholders of the README and what stands for them here (the README shows a user's values). */
  substitute?: (workspace: string) => Promise<[string, string][]>;
}

/** Every block that invokes runner and is run, by its first line. */
const RUN = new Map<string, RunSpec>([
  [
    'npx --no-install runner status pipelines/demo.yaml --state-dir /tmp/runner-simulated-AbC123/state',
    {
      env: 'service',
      // The folder `npm run demo` printed: a demo run here prints its own.
      substitute: async (workspace) => {
        const demo = await sh(
          `runner apply pipelines/demo.yaml --simulate --yes --sim-time-scale 0.005`,
          workspace,
          {},
        );
        const state = /--state-dir (\S+)`/.exec(demo.stdout)?.[1];
        expect(state, demo.stdout + demo.stderr).toBeDefined();
        return [['/tmp/runner-simulated-AbC123/state', state ?? '']];
      },
    },
  ],
  [
    'export MEDIAGEN_API_KEY=...                 # or --api-key-file FILE',
    {
      env: 'service',
      substitute: () => Promise.resolve([['MEDIAGEN_API_KEY=...', 'MEDIAGEN_API_KEY="$SIM_KEY"']]),
    },
  ],
  [
    'RUN="${GITHUB_RUN_ID:-$(date -u +%F)}"   # one run (state and idempotency keys) per workflow run; a re-run keeps the id and resumes it',
    { env: 'service' },
  ],
  [
    'git worktree add ../base origin/main',
    // The section plans both sides offline from catalog.json: no key, no service.
    { env: 'offline', substitute: (workspace) => Promise.resolve([['/tmp/', `${workspace}/../tmp/`]]) },
  ],
  [
    'npx --no-install runner runs pipelines/nightly-social.yaml                 # every run: id, start, counts, credits',
    {
      env: 'service',
      // The run the README names, applied first.
      substitute: async (workspace) => {
        const night = await sh(
          'runner apply pipelines/nightly-social.yaml --run 2026-11-22 --yes',
          workspace,
          simulatorEnv(),
        );
        expect(night.code, night.stderr).toBe(0);
        return [];
      },
    },
  ],
  ['npx --no-install runner apply pipelines/nightly-social.yaml --run 2026-11-22', { env: 'service' }],
  [
    'npx --no-install runner state prune pipelines/nightly-social.yaml --keep-runs 14 --dry-run   # what would go',
    {
      // Prune reads and deletes state only: no service, no key. A night applied first, so there is a run.
      env: 'offline',
      substitute: async (workspace) => {
        const night = await sh(
          'runner apply pipelines/nightly-social.yaml --run 2026-11-22 --yes',
          workspace,
          simulatorEnv(),
        );
        expect(night.code, night.stderr).toBe(0);
        return [];
      },
    },
  ],
  [
    'RUN="${GITHUB_RUN_ID:-$(date -u +%F)}"  # one run per night; a re-run keeps the id and resumes it, paying nothing twice',
    { env: 'service' },
  ],
]);

/** A page's fenced `sh` blocks that invoke runner (`runner …` or `npx --no-install runner …`). */
function runnerBlocks(file: string, readme: string): Block[] {
  const blocks: Block[] = [];
  const lines = readme.split('\n');
  for (let index = 0; index < lines.length; index++) {
    if (lines[index]?.trim() !== '```sh') continue;
    const start = index;
    const body: string[] = [];
    while (++index < lines.length && lines[index]?.trim() !== '```') body.push(lines[index] ?? '');
    const text = body.join('\n');
    if (/(^|[\s(&;])runner\s/m.test(text)) blocks.push({ first: body[0] ?? '', file, line: start + 1, text });
  }
  return blocks;
}

let shims: string;
let simulator: Simulator;

/** The environment of a block run against the simulator, as the README exports it. */
function simulatorEnv(): Record<string, string> {
  return {
    MEDIAGEN_BASE_URL: simulator.baseUrl,
    MEDIAGEN_API_KEY: simulator.apiKey,
    SIM_KEY: simulator.apiKey,
  };
}

/** Runs a script with bash -e in `cwd`, runner and npx as the shims, `y` answering any prompt. */
function sh(
  script: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
      cwd,
      env: cliEnv({ ...env, PATH: `${shims}:${process.env.PATH ?? ''}`, TMPDIR: join(cwd, '..', 'tmp') }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdin.end('y\n'.repeat(20));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Every command block of the README and of docs/*.md (#33.6, #33.9) run as written, in a copy of pipelines/ that is a git
 * repository with a catalog.json: against the simulator (the API key and base URL in the environment,
 * as the README exports them), or offline where the README says so. `runner` and `npx --no-install
 * runner` run the built CLI; `apply` gets fast polls (the simulator's jobs take milliseconds), nothing
 * else is added. The README's cost-diff block ended with a plan that exits 4 ("No API key") offline.
 */
describe('the README, run', () => {
  let dir: string;
  let workspace: string;
  const blocks: Block[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runner-readme-'));
    shims = join(dir, 'bin');
    workspace = join(dir, 'repo');
    await mkdir(shims);
    await mkdir(join(dir, 'tmp'));
    await writeFile(
      join(shims, 'runner'),
      [
        '#!/bin/sh',
        `[ "$1" = apply ] && exec "${process.execPath}" "${binPath}" "$@" --first-poll 50 --poll-interval 15-25`,
        `exec "${process.execPath}" "${binPath}" "$@"`,
      ].join('\n'),
    );
    await writeFile(
      join(shims, 'npx'),
      '#!/bin/sh\n[ "$1" = --no-install ] && [ "$2" = runner ] || { echo "npx $*: not a runner command" >&2; exit 127; }\nshift 2\nexec runner "$@"\n',
    );
    await chmod(join(shims, 'runner'), 0o755);
    await chmod(join(shims, 'npx'), 0o755);
    simulator = await startSimulator({ timeScale: 0.005 });
    await mkdir(workspace);
    await cp(join(root, 'pipelines'), join(workspace, 'pipelines'), {
      recursive: true,
      filter: (source) => !/[/\\](\.runner|runner-output)$/.test(source),
    });
    const catalog = await sh('runner models --json > catalog.json', workspace, simulatorEnv());
    expect(catalog.code, catalog.stderr).toBe(0);
    const git = await sh(
      'git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm base && git update-ref refs/remotes/origin/main HEAD',
      workspace,
      {},
    );
    expect(git.code, git.stderr).toBe(0);
    const pages = [
      'README.md',
      ...(await readdir(join(root, 'docs')))
        .filter((name) => name.endsWith('.md'))
        .map((name) => `docs/${name}`),
    ];
    for (const page of pages) blocks.push(...runnerBlocks(page, await readFile(join(root, page), 'utf8')));
  }, 60_000);
  afterAll(async () => {
    await simulator?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('lists every block that invokes runner as run or skipped, and no block that is gone', () => {
    const firsts = blocks.map((block) => block.first);
    const unlisted = firsts.filter((first) => !RUN.has(first) && !SKIPPED.has(first));
    expect(unlisted, 'a new README block: run it here, or skip it with the reason').toEqual([]);
    const gone = [...RUN.keys(), ...SKIPPED.keys()].filter((first) => !firsts.includes(first));
    expect(gone, 'a block listed here is no longer in the README').toEqual([]);
  });

  it('runs each block as written, every command exiting 0', { timeout: 240_000 }, async () => {
    for (const block of blocks) {
      const spec = RUN.get(block.first);
      if (spec === undefined) continue;
      // Each block is a recipe of its own: a fresh copy of the repository (its ../base and ../tmp beside it).
      const here = join(dir, `${block.file.replaceAll('/', '-')}-line-${block.line}`, 'repo');
      await cp(workspace, here, { recursive: true });
      await mkdir(join(here, '..', 'tmp'));
      let text = block.text;
      for (const [placeholder, value] of (await spec.substitute?.(here)) ?? []) {
        expect(text, `${block.file} line ${block.line}: placeholder ${placeholder}`).toContain(placeholder);
        text = text.replaceAll(placeholder, value);
      }
      const result = await sh(text, here, spec.env === 'service' ? simulatorEnv() : { SIM_KEY: '' });
      expect(result.code, `${block.file} line ${block.line}:\n${block.text}\n${result.stderr}`).toBe(0);
    }
  });
});
