/**
 * Where a simulated apply's state went, for the commands that find none. `apply --simulate` keeps its
 * state in a fresh temporary folder (src/app/apply-options.ts, `stateLocation`), not beside the
 * manifest, so `status`, `runs` and `report` find it only when given its `--state-dir` (#20.10).
 */
export const SIMULATED_STATE_NOTE =
  'An `apply --simulate` (`npm run demo`) keeps its state in a temporary folder: pass the --state-dir its summary printed.';
