import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { binPath, cliEnv, runCli } from './run-cli.js';

describe('runner simulate (built binary)', () => {
  it('serves the simulator on 127.0.0.1, answers the CLI, and stops on SIGINT with exit 0', async () => {
    const child = spawn(
      process.execPath,
      [binPath, 'simulate', '--port', '0', '--time-scale', '0.01', '--seed', '7'],
      {
        env: cliEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    child.stdout.setEncoding('utf8');
    const baseUrl = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: string) => {
        stdout += chunk;
        const match = /export MEDIAGEN_BASE_URL=(\S+)/.exec(stdout);
        if (match?.[1] !== undefined) resolve(match[1]);
      });
      child.on('exit', () => reject(new Error(`simulate exited early: ${stdout}`)));
    });
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v2$/);

    const balance = await runCli(['balance', '--json'], {
      env: { MEDIAGEN_BASE_URL: baseUrl, MEDIAGEN_API_KEY: 'sim-key-0000' },
    });
    expect(balance.code).toBe(0);
    expect(JSON.parse(balance.stdout)).toHaveProperty('availableCredit');

    const stats = (await (await fetch(baseUrl.replace(/\/api\/v2$/, '/__sim/stats'))).json()) as {
      requests: Record<string, number>;
    };
    expect(stats.requests['GET /account/balance']).toBe(1);

    // #33.16: the flags that poll it at its pace, as --simulate polls its own (first poll 10 s x 0.01).
    const flags = /Poll at its pace: runner apply FILE (.+)/.exec(stdout)?.[1];
    expect(flags).toBe('--first-poll 100 --poll-interval 30-50 --job-deadline 9');
    const dir = await mkdtemp(join(tmpdir(), 'runner-simulate-'));
    const manifest = join(dir, 'one.yaml');
    await writeFile(
      manifest,
      'version: 1\nname: one\njobs:\n  - id: a\n    kind: image\n    model: chatgpt-image-sangtao\n    prompt: A watercolor painting of a lighthouse at dawn over a calm sea\n',
    );
    const apply = await runCli(['apply', manifest, '--yes', ...flags!.split(' ')], {
      env: { MEDIAGEN_BASE_URL: baseUrl, MEDIAGEN_API_KEY: 'sim-key-0000' },
      cwd: dir,
    });
    expect(apply.code).toBe(0);

    child.kill('SIGINT');
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
  });

  it('rejects a fault spec it cannot read with exit 2', async () => {
    const result = await runCli(['simulate', '--port', '0', '--faults', '503=0.5']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--faults: cannot read "503=0.5"');
  });
});
