import { startCli, type CliResult } from './run-cli.js';

/**
 * Runs the CLI and SIGKILLs it `delayMs` after `hasStarted()` (checked every millisecond in this
 * process) first returns true, e.g. the simulator has seen the run's first request. Timing kills from
 * a moment of the run itself, not from the spawn, keeps them spread over the run's real work however
 * long a loaded machine takes to start Node.
 */
export async function runCliKilledAfterStart(
  args: string[],
  delayMs: number,
  hasStarted: () => boolean,
  options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult & { killed: boolean }> {
  const cli = startCli(args, options);
  let killed = false;
  let killTimer: NodeJS.Timeout | undefined;
  const watch = setInterval(() => {
    if (!hasStarted()) return;
    clearInterval(watch);
    killTimer = setTimeout(() => {
      killed = true;
      cli.kill();
    }, delayMs);
  }, 1);
  const result = await cli.result;
  clearInterval(watch);
  clearTimeout(killTimer);
  return { ...result, killed: killed && result.signal === 'SIGKILL' };
}

/**
 * Runs the CLI and SIGKILLs it as soon as `shouldKill()` (checked every `checkEveryMs`, in this
 * process) returns true, e.g. the in-process simulator has just accepted a create.
 */
export async function runCliKilledWhen(
  args: string[],
  shouldKill: () => boolean,
  options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number; checkEveryMs?: number } = {},
): Promise<CliResult & { killed: boolean }> {
  const cli = startCli(args, options);
  let killed = false;
  const timer = setInterval(() => {
    if (killed || !shouldKill()) return;
    killed = true;
    cli.kill();
  }, options.checkEveryMs ?? 1);
  const result = await cli.result;
  clearInterval(timer);
  return { ...result, killed: killed && result.signal === 'SIGKILL' };
}
