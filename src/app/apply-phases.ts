import type { ExecutionSummary } from '../execute/events.js';
import type { ExecuteOptions } from '../execute/options.js';
import type { RunState, StateStore } from '../state/index.js';
import type { CommandContext } from './context.js';
import type { BalanceWatch } from './balance-watch.js';
import type { Outcome } from './outcome.js';
import type { ApplyOptions, stateLocation } from './apply-options.js';
import type { RunOutputDir } from './check-output-dir.js';
import type { Prepared, PrepareOptions } from './prepare-plan.js';
import type { projectIdentity } from './run-project.js';
import type { RepeatedFlags, RerunCommandName } from './rerun-command.js';
import type { SavedPlan } from '../plan/saved-plan.js';
import type { DueReplacements, ReplaceFrom } from './replace-from-options.js';
import type { ApplySummaryFacts, ApplyView } from './apply-effects.js';

/** What ends an apply before it runs: invalid input, nothing to do, or declined. */
export interface Stopped {
  outcome: Outcome;
}

/** Phase 1: what the command line, or a saved plan in its place, asks of this apply. */
export interface ApplyInputs {
  /** The context, with a saved plan's RUNNER_OUTPUT in place of this shell's. */
  ctx: CommandContext;
  /** The file given: a manifest, or a saved plan. */
  target: string;
  saved: SavedPlan | undefined;
  manifestFile: string;
  options: ApplyOptions;
  replaceFrom: ReplaceFrom;
  /** A command to run next, with the flags that locate this run (./rerun-command.ts). */
  rerun: (command: RerunCommandName, file: string, flags?: RepeatedFlags, extra?: string[]) => string;
}

/** Phase 2: the run's state opened (locked, or leased), with the plan made before it was. */
export interface OpenedRun extends ApplyInputs {
  simulated: boolean;
  location: Awaited<ReturnType<typeof stateLocation>>;
  /** The one door to the run's state, and to the other runs' (issue 34.1): never `.runner/` past it. */
  store: StateStore;
  state: RunState;
  /** The plan made before the lock; dropped before a second plan is made, so a run holds one, not two. */
  firstTry: Extract<Prepared, { ok: true }> | undefined;
  /** The output folder the run's first record named, read before the lock. */
  peekedOutputDir: string | undefined;
  prepare: (date: PrepareOptions['date']) => Promise<Prepared>;
}

/** Phase 3: the plan this apply runs, made under the lock, and who may run it. */
export interface PlannedRun extends OpenedRun {
  prepared: Extract<Prepared, { ok: true }>;
  /** The repository the run is of (#31.13). */
  project: Awaited<ReturnType<typeof projectIdentity>>;
}

/** Phase 4: what this apply is allowed to do, and where its results go. */
export interface AuthorizedRun extends PlannedRun {
  outputs: RunOutputDir;
  targeting: ApplyOptions['targeting'];
  /** `--replace-from`: the rejected jobs still due, and what each replaces. */
  due: DueReplacements | undefined;
}

/** Phase 5: the run executed, with what its report needs. */
export interface ExecutedRun extends AuthorizedRun {
  summary: ExecutionSummary;
  /** The signal that stopped the run, if any. */
  signal: NodeJS.Signals | undefined;
  executeOptions: ExecuteOptions;
  hints: ApplySummaryFacts['hints'];
  startedAt: number;
  balance: BalanceWatch | undefined;
}

export function preflightRun(
  manifestFile: string,
  runId: string,
  prepared: Extract<Prepared, { ok: true }>,
  simulated: boolean,
  recordedOutputDir: string | undefined,
  here: { recordedHere: boolean },
) {
  const { loaded, plan } = prepared;
  return {
    manifestFile,
    pipeline: plan.pipeline,
    runId,
    manifestDir: loaded.dir,
    manifestOutput: loaded.manifest.output,
    manifestReport: loaded.manifest.report,
    recordedOutputDir,
    recordedHere: here.recordedHere,
    simulated,
  };
}

export function reportInvalid(
  ctx: CommandContext,
  view: ApplyView,
  prepared: Extract<Prepared, { ok: false }>,
  manifestFile: string,
) {
  ctx.output.err(view.issues(prepared.issues, manifestFile, ctx.output.style));
  ctx.output.err('No job was created.');
  return 'invalid-input' as const;
}
