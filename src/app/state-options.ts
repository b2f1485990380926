import type { StateOptions } from './run-options.js';
import type { PruneOptions } from './state-prune.js';

/** What `runner state` is asked. */
export interface StateCommandOptions {
  /** `--run`; `default` when not given. */
  runId: string;
  /**
   * `--state-dir` and `--state` as given (or as RUNNER_STATE_URL / RUNNER_STATE_DIR filled them in).
   * `check` reads one of them (both: a usage error, before it runs); push, pull and lease both.
   */
  state: StateOptions;
  /** `--repair` (check): cut the journal at its first bad line. */
  repair: boolean;
  /** `--break` (lease): end the lease now. */
  break: boolean;
  /** `--json` (lease, prune). */
  json: boolean;
  /** prune: which runs, and how. */
  prune: PruneOptions;
}
