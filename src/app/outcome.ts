/**
 * What a use case did, as it tells the CLI. A use case never picks an exit code: src/cli/exit-codes.ts
 * maps each outcome to one (`exitCodeOf`), beside the thrown errors' (`src/cli/report-error.ts`), so
 * the exit-code table of docs/cli-reference.md is read off one file.
 */
export type Outcome =
  /** Everything asked was done (apply: every job done and its result files written). */
  | 'done'
  /** The input is invalid: the manifest, a var, a decisions file, a targeting pattern. Nothing was created. */
  | 'invalid-input'
  /** status: a done job's results are not all downloaded yet. */
  | 'results-unsaved'
  /** state check: the journal has a bad line (and `--repair` was not given). */
  | 'journal-damaged'
  /** apply: the confirmation was declined; nothing was applied. */
  | 'declined'
  /** apply, status: some jobs failed or are not done (src/state/run-verdict.ts). */
  | 'jobs-unfinished'
  /** apply: every job done, but a result file (results index, report, JUnit) could not be written. */
  | 'outputs-unwritten'
  /** plan / apply: the jobs need more than the available credit, the budget or `--max-credits`. */
  | 'over-limit'
  /** diff / plan --compare-to: a `--fail-on-increase` or `--fail-on-increase-percent` limit crossed. */
  | 'increase-limit-crossed'
  /** apply: the service refused the API key during the run. */
  | 'auth-failed'
  /** apply: stopped by Ctrl-C (SIGINT) before every job was done. */
  | 'interrupted'
  /** apply: stopped by SIGTERM (a CI runner cancelling the job) before every job was done. */
  | 'terminated';
