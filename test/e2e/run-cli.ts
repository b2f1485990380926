import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { testCacheEnv } from '../test-cache-env.js';

/** The CLI as the package ships it (its `bin`): the bundle `npm run build` links (scripts/bundle.js). */
export const binPath = fileURLToPath(new URL('../../dist/bundle/runner.js', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * The environment of a built-CLI child process: a clean one (no terminal settings, no API key from the
 * developer's shell), no colors, and the tests' own cache folder; `extra` is added last.
 */
export function cliEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...testCacheEnv, ...extra };
}

/** A built-CLI child process that the test may kill at a moment of its choosing. */
export interface KillableCli {
  readonly pid: number | undefined;
  /** Settles when the child has exited (normally, by a signal, or by the safety timeout). */
  readonly result: Promise<CliResult>;
  /** Sends SIGKILL now (no cleanup runs in the child: the crash case). No-op once it has exited. */
  kill(): void;
  /** Sends `signal` (SIGINT: a Ctrl-C; SIGTERM: a CI cancel). No-op once it has exited. */
  interrupt(signal: 'SIGINT' | 'SIGTERM'): void;
}

/**
 * Starts the BUILT CLI (`dist/bundle/runner.js`, made by `npm run build`, which `npm test` runs first) as a
 * child process, as a user or CI would, with a clean environment and no terminal, and hands back control at once, so a test can SIGKILL the
 * child mid-run (before, during or after any create, poll or download) and then start it again.
 */
export function startCli(
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {},
): KillableCli {
  if (!existsSync(binPath)) throw new Error(`${binPath} is missing: run \`npm run build\` first`);
  const child = spawn(process.execPath, [binPath, ...args], {
    cwd: options.cwd ?? process.cwd(),
    env: cliEnv({ CI: 'true', ...options.env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let exited = false;
  const result = new Promise<CliResult>((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      exited = true;
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return {
    pid: child.pid,
    result,
    kill: () => {
      if (!exited && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
    interrupt: (signal) => {
      if (!exited && child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}

/** Runs the built CLI to its end (see {@link startCli}). */
export function runCli(
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  return startCli(args, options).result;
}
