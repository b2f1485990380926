import { parseStringOption } from './values.js';
import { parseStateUrl } from '../../state/backends/postgres/state-url.js';
import type { StateCommandOptions } from '../../app/state.js';
import { readRunId, readStateDir, type Flags } from './common.js';

/**
 * `runner state ACTION` flags → {@link StateCommandOptions}. `check` reads the run's state in one
 * place (`--state-dir` and `--state` together are refused); push, pull and lease move it between the
 * two, so take both.
 */
export function parseStateOptions(action: string, flags: Flags): StateCommandOptions {
  const stateDir = parseStringOption(flags.stateDir);
  const stateUrl = typeof flags.state === 'string' ? flags.state : undefined;
  // A URL carrying a password is refused before anything could show it (#31.12).
  if (stateUrl !== undefined) parseStateUrl(stateUrl);
  return {
    runId: readRunId(flags),
    state:
      action === 'check'
        ? readStateDir(flags)
        : {
            ...(stateDir === undefined ? {} : { stateDir }),
            ...(stateUrl === undefined ? {} : { stateUrl }),
          },
    repair: flags.repair === true,
    break: flags.break === true,
    json: flags.json === true,
  };
}
