import { UsageError } from '../../errors.js';
import { OUTPUT_ROOT_ENV } from '../../app/output-root.js';

/**
 * Environment defaults of flags, so a shell or a CI job can set where state lives once instead of
 * repeating the flag on every command: the flag wins, then the variable, then the built-in default.
 */
export const ENV_DEFAULTS: readonly { env: string; option: string; flag: string; unless?: string }[] = [
  // The database (`--state`) and the folder (`--state-dir`) name the same thing: a flag for one
  // with the variable of the other is refused (#31.2); RUNNER_STATE_URL is read first, so it wins
  // over RUNNER_STATE_DIR when both variables are set.
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
  input: {
    takes: ReadonlySet<string>;
    env: NodeJS.ProcessEnv;
    simulate: boolean;
    /** The command takes a folder and a database at once (`state push|pull`): no mix is refused. */
    bothPlaces?: boolean;
  },
): void {
  if (input.simulate) return;
  const setButEmpty = input.env[OUTPUT_ROOT_ENV]?.trim() === '';
  if (input.takes.has('output') && setButEmpty)
    throw emptyVariable(OUTPUT_ROOT_ENV, 'the root of download folders');
  // The flags the command line gave, before any variable fills one in.
  const given = new Set(
    ENV_DEFAULTS.flatMap(({ option }) => (options[option] === undefined ? [] : [option])),
  );
  for (const { env, option, flag, unless } of ENV_DEFAULTS) {
    const value = input.env[env];
    if (!input.takes.has(flag) || options[option] !== undefined || value === undefined) continue;
    // A flag of one kind with the variable of the other: the variable was set for a reason (a CI
    // secret naming the team's database); quietly using the flag's state paid every job again (#31.2).
    if (unless !== undefined && given.has(unless) && value.trim() !== '' && input.bothPlaces !== true)
      throw mixedState(env, unless);
    if (unless !== undefined && options[unless] !== undefined) continue;
    if (value.trim() === '') throw emptyVariable(env, `--${flag} when that is not given`);
    options[option] = value;
  }
}

function mixedState(env: string, option: string): UsageError {
  const flag = option === 'state' ? '--state' : '--state-dir';
  return new UsageError(
    `${flag} and ${env} name two places for the run's state (a ${flag === '--state' ? 'database' : 'folder'} and a ${flag === '--state' ? 'folder' : 'database'}): give one.`,
    {
      hint: `Unset ${env} for this command (\`env -u ${env} runner …\`), or drop ${flag} to use the state ${env} names.`,
    },
  );
}

function emptyVariable(env: string, standsFor: string): UsageError {
  return new UsageError(`${env} is set but empty.`, {
    hint: `Unset it, or set it to a folder (it stands for ${standsFor}).`,
  });
}
