import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binPath, cliEnv } from './run-cli.js';

const catalog = fileURLToPath(new URL('../fixtures/plan-golden/catalog.json', import.meta.url));

/**
 * `runner plan … | head`: the reader closes the pipe after the first lines. That is the reader's
 * choice, not a failure of runner: no "internal error", the command's own exit code, and a file asked
 * for with `--out` is still written whole.
 */
describe('stdout closed by its reader (built binary)', () => {
  let dir: string;
  let manifest: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runner-pipe-'));
    manifest = join(dir, 'many.yaml');
    const values = (prefix: string, count: number) =>
      `[${Array.from({ length: count }, (_, index) => `${prefix}${index}`).join(', ')}]`;
    await writeFile(
      manifest,
      `version: 1
name: many
maxJobs: 5000
defaults: { kind: image, model: chatgpt-image-sangtao }
jobs:
  - id: "cup-{{ drink }}-{{ style }}"
    matrix: { drink: ${values('drink', 50)}, style: ${values('style', 100)} }
    prompt: A watercolor advertisement of a {{ drink }} cup in the {{ style }} style
`,
    );
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('plan --format json stops writing, exits with its verdict and still writes --out whole', async () => {
    const out = join(dir, 'plan.json');
    const child = spawn(
      process.execPath,
      [binPath, 'plan', manifest, '--offline', '--catalog', catalog, '--format', 'json', '--out', out],
      {
        env: cliEnv({ CI: 'true' }),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let received = 0;
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    // Like `head -c 100`: read one piece, then close the pipe while the report is still being written.
    child.stdout.once('data', (chunk: Buffer) => {
      received += chunk.length;
      child.stdout.destroy();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(received).toBeGreaterThan(0);
    expect(stderr).not.toMatch(/internal error|EPIPE/);
    expect(code).toBe(0);
    const report = JSON.parse(await readFile(out, 'utf8')) as { jobList: unknown[] };
    expect(report.jobList).toHaveLength(5000);
  });
});
