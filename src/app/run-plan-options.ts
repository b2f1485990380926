import type { ManifestOptions } from './prepare-plan.js';
import type { RepeatedFlags } from './rerun-command.js';
import type { StateOptions } from './run-options.js';

/**
 * What `plan` and `apply` are both asked: the manifest's jobs (ManifestOptions), the run they belong
 * to and its state, and what may be paid. Plan prices exactly what apply with the same options would
 * do (./cost-check.ts), so the two read these the same way.
 */
export interface RunPlanOptions extends ManifestOptions {
  /** `--run`; `default` when not given. */
  runId: string;
  /** Where the run's state lives (`--state-dir`, `--state`). */
  state: StateOptions;
  /** `--output`: the run's own output folder, used as given. */
  output?: string;
  /** `--max-credits`: the cap on this run's spending. */
  maxCredits?: number;
  /** `--retry-failed`: jobs that failed permanently run again. */
  retryFailed: boolean;
  /** `--resend-uncertain`: creates whose answer was lost are sent again. */
  resendUncertain: boolean;
  /** `--replace-from FILE`: the decisions file whose rejected jobs run again. */
  replaceFrom?: string;
  /** The flags as given, for the commands a hint names (./rerun-command.ts). */
  repeat: RepeatedFlags;
}
