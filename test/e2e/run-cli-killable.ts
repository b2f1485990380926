import { startCli, type CliResult } from './run-cli.js';

/**
 * Runs the CLI and SIGKILLs it after `delayMs` unless it exited first. `killed` tells which happened.
 */
export async function runCliKilledAfter(
  args: string[],
  delayMs: number,
  options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult & { killed: boolean }> {
  const cli = startCli(args, options);
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    cli.kill();
  }, delayMs);
  const result = await cli.result;
  clearTimeout(timer);
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
