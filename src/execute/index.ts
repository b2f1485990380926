export { executePlan, chooseExitReason } from './executor.js';
export type { ExecutionEvent, ExecutionSummary, ExitReason, JobOutcome, StopReason } from './events.js';
export type { ExecuteDeps, ExecuteOptions, ExecuteRun } from './options.js';
export { resolveExecuteOptions } from './options.js';
export {
  DEFAULT_FAILURE_ACTIONS,
  DEFAULT_RETRY_POLICY,
  FAILURE_ADVICE,
  decideFailure,
  type FailureAction,
  type RetryPolicy,
} from './failure-policy.js';
export { buildOutputName, resolveOutputPath } from './output-path.js';
export { MAX_CONCURRENCY } from './concurrency.js';
