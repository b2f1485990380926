import { ExitCode } from '../../errors.js';

/**
 * Ctrl-C (or SIGTERM) once: abort the returned signal (apply stops creating, follows open jobs to the
 * end and saves state). Twice: exit at once with 130 (143 for SIGTERM, as shells report it), telling
 * the user the `resume` command. That is safe at any instant because every step is journaled
 * (and fsynced) before anything depends on it; the lock left behind names a dead pid and is taken over.
 * This and bin.ts are the only places that end the process.
 */
export function handleInterrupts(
  say: (line: string) => void,
  resume: string,
): { signal: AbortSignal; received(): NodeJS.Signals | undefined; dispose(): void } {
  const controller = new AbortController();
  let first: NodeJS.Signals | undefined;
  const onSignal = (name: NodeJS.Signals) => {
    if (!controller.signal.aborted) {
      first = name;
      say(
        `${name}: no new jobs will be created; waiting for open jobs to finish. Press Ctrl-C again to exit now (state is kept).`,
      );
      controller.abort(new Error(name));
      return;
    }
    say(
      `${name} again: exiting now. Run \`${resume}\` to resume: finished jobs are skipped and nothing is paid twice.`,
    );
    process.exit(name === 'SIGTERM' ? ExitCode.Terminated : ExitCode.Interrupted);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    received: () => first,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
