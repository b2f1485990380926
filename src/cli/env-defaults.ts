import { UsageError } from '../errors.js';

/**
 * Environment defaults of flags, so a shell or a CI job can set where state and results live once
 * instead of repeating the flags on every command. The order is: the flag, then the variable, then
 * the built-in default (for `--output`, the manifest's `output:` comes after the variable). A state
 * backend given by URL would be one more row here.
 */
export const ENV_DEFAULTS: readonly { env: string; option: string; flag: string }[] = [
  { env: 'RUNNER_STATE_DIR', option: 'stateDir', flag: 'state-dir' },
  { env: 'RUNNER_OUTPUT', option: 'output', flag: 'output' },
];

/**
 * Fills `options` from the environment for each flag of {@link ENV_DEFAULTS} the command takes and the
 * command line did not give. A variable that is set but empty (`RUNNER_STATE_DIR=$UNSET`) is refused
 * rather than read as "not set": it would quietly put the state somewhere else. With `--simulate` the
 * variables are not read: the in-process simulator forgets its jobs at exit, so its runs must not
 * land in the state and output folders of real runs.
 */
export function applyEnvDefaults(
  options: Record<string, unknown>,
  input: { takes: ReadonlySet<string>; env: NodeJS.ProcessEnv; simulate: boolean },
): void {
  if (input.simulate) return;
  for (const { env, option, flag } of ENV_DEFAULTS) {
    const value = input.env[env];
    if (!input.takes.has(flag) || options[option] !== undefined || value === undefined) continue;
    if (value.trim() === '') {
      throw new UsageError(`${env} is set but empty.`, {
        hint: `Unset it, or set it to a folder (it stands for --${flag} when that is not given).`,
      });
    }
    options[option] = value;
  }
}
