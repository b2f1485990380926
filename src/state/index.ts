/**
 * The state's public face: what code outside `src/state/` may use of a run's state, by name. Every
 * module outside imports the state from here (`layering.test.ts` fails on an import of a module under
 * `state/` past this file, and on an `export *` here): the backends (`backends/folder/`,
 * `backends/postgres/`) are reached through `StateStore` (`stateStoreFor`) and the few functions below
 * that pick their backend themselves. A name is added here when a use case needs it, not before.
 *
 * The one other public module is `state-url.ts` (the `--state` URL read and shown): the CLI parses it
 * at start, before any state is read, and it imports nothing of the state.
 */

// The store: where a run's state lives, and what a run's state is.
export {
  listStoredRuns,
  openStoredRun,
  readStoredRun,
  readStoredRunStart,
  stateStoreFor,
} from './select-state-store.js';
export type {
  ClaimResult,
  LateAnswers,
  RunCoordination,
  RunLease,
  RunState,
  StateStore,
} from './state-store.js';
export type { AcquireLockOptions, HostIdentity } from './lock-options.js';
export {
  resolveStateDir,
  resolveStateRoot,
  runnerDirFor,
  toSafeSegment,
  uploadCachePathFor,
  type RunAddress,
} from './state-dir.js';
export { displayStateUrl, parseStateUrl } from './state-url.js';
export { machineName, hostOf } from './machine-name.js';

// A run's records and the jobs replayed from them.
export type { JournalEntry, JournalRecord } from './records.js';
export { MAX_RESULTS_PER_JOB } from './journal-format.js';
export type { JournalWriter, LateEntry } from './journal-writer.js';
export { applyJournalRecord, type ReplayResult } from './replay.js';
export { replayRecords } from './replay-records.js';
export { LATE_ANSWER_WINDOW_MS, lateAnswerWaitMs } from './late-answer-window.js';
export {
  sumBudgetedCredits,
  summarizeJob,
  type AttemptState,
  type DownloadState,
  type JobState,
  type JobStatus,
  type JobSummary,
} from './job-state.js';
export { viewJobState } from './stored-job.js';
export { deriveIdempotencyKey } from './idempotency-key.js';
export type { OtherRunsJobs } from './other-runs-jobs.js';
export type { StateSnapshots } from './snapshot-schedule.js';
export { UPLOAD_CACHE_FILE, type UploadCache } from './upload-cache.js';
export { formatPlanIdentity, type PlanSettings } from './plan-agreement.js';
export { sharePlanStrings } from './share-plan-strings.js';

// What the commands show of a run.
export { buildStatusView, type JobStatusView, type StatusView, type ViewStatus } from './status-view.js';
export type { RunSummary, RunsView } from './run-summary.js';
export { judgeRun, type RunVerdict } from './run-verdict.js';
export { recordedOutputDir, recordedOutputHost } from './run-output-dir.js';
export { moveCommand } from './moved-run-hint.js';
export {
  OUTPUT_CLAIM_FILE,
  checkOutputClaim,
  claimOutputDir,
  judgeReadClaim,
  outputClaimText,
  parseOutputClaim,
  readOutputClaim,
  type ClaimVerdict,
  type OutputOwner,
} from './output-claim.js';

// `runner state`: prune, push/pull/lease (their backends loaded when called), check (the folder's journal).
export { selectRunsToPrune, type DeleteRunResult, type PrunedRun } from './prune-runs.js';
export {
  breakLease,
  inspectLease,
  pullRunState,
  pushRunState,
  type LeaseView,
  type MoveAddress,
} from './run-moves.js';
export {
  checkRunJournal,
  locateRunJournal,
  repairRunJournal,
  type RunJournal,
  type RunJournalCut,
} from './backends/folder/run-journal-check.js';
export type { JournalCheck } from './backends/folder/check-journal.js';
