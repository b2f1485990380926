import { UsageError } from '../../errors.js';
import { OUTPUT_ROOT_ENV } from '../../app/output-root.js';

/**
 * Environment defaults of flags, so a shell or a CI job can set where state lives once instead of
 * repeating the flag on every command: the flag wins, then the variable, then the built-in default.
 */
export const ENV_DEFAULTS: readonly { env: string; option: string; flag: string; unless?: string }[] = [
  // The database (`--state`) and the folder (`--state-dir`) name the same thing: a flag for one
  // keeps the variable of the other from applying (RUNNER_STATE_URL is read first, so it wins over
  // RUNNER_STATE_DIR when both are set).
  { env: 'RUNNER_STATE_URL', option: 'state', flag: 'state', unless: 'stateDir' },
  { env: 'RUNNER_STATE_DIR', option: 'stateDir', flag: 'state-dir', unless: 'state' },
];

export { OUTPUT_ROOT_ENV };

/**
 * Fills `options` from the environment for each flag of {@link ENV_DEFAULTS} the command takes and the
 * command line did not give, and checks {@link OUTPUT_ROOT_ENV} for commands that write or read
 * downloads. A variable that is set but empty (`RUNNER_STATE_DIR=$UNSET`) is refused
 * rather than read as "not set": it would quietly put the state somewhere else. With `--simulate` the
 * variables are not read: the in-process simulator forgets its jobs at exit, so its runs must not
 * land in the state and output folders of real runs.
 */
export function applyEnvDefaults(
  options: Record<string, unknown>,
  input: { takes: ReadonlySet<string>; env: NodeJS.ProcessEnv; simulate: boolean },
): void {
  if (input.simulate) return;
  const setButEmpty = input.env[OUTPUT_ROOT_ENV]?.trim() === '';
  if (input.takes.has('output') && setButEmpty)
    throw emptyVariable(OUTPUT_ROOT_ENV, 'the root of download folders');
  for (const { env, option, flag, unless } of ENV_DEFAULTS) {
    const value = input.env[env];
    if (!input.takes.has(flag) || options[option] !== undefined || value === undefined) continue;
    if (unless !== undefined && options[unless] !== undefined) continue;
    if (value.trim() === '') throw emptyVariable(env, `--${flag} when that is not given`);
    options[option] = value;
  }
}

function emptyVariable(env: string, standsFor: string): UsageError {
  return new UsageError(`${env} is set but empty.`, {
    hint: `Unset it, or set it to a folder (it stands for ${standsFor}).`,
  });
}
