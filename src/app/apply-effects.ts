import type { OutsideThisApply } from './outside-apply.js';
import type { Clock } from '../clock.js';
import type { ExecutionEvent, ExecutionSummary } from '../execute/events.js';
import type { CommandContext } from './context.js';
import type { ValidationIssue } from '../manifest/types.js';
import type { ServiceClientOptions } from '../service/client.js';
import type { ClientEvent } from '../service/client-event.js';
import type { ServiceConnection } from './connection.js';
import type { Style } from '../text-style.js';
import type { UnfinishedRunsRenderer } from './warn-unfinished-runs.js';

/**
 * What apply needs from outside, passed in by the CLI (src/cli/commands/apply.ts): the service,
 * the log, the clock, and how the terminal shows the run.
 */
export interface ApplyEffects {
  /** Opens the service: the real one, or the embedded simulator with `--simulate` (src/cli/effects/connect.ts). */
  connect: (
    ctx: CommandContext,
    onEvent: (event: ClientEvent) => void,
    limits: Pick<ServiceClientOptions, 'maxDownloadBytes'>,
  ) => Promise<ServiceConnection>;
  /** The run's log, `--log-file` (src/cli/effects/logger.ts). */
  createLogger: (logFile: string | undefined) => ApplyLogger;
  clock: Clock;
  view: ApplyView;
}

/** The log apply writes (pino's, src/cli/effects/logger.ts). */
export interface ApplyLogger {
  info(object: object, message: string): void;
  flush(): void;
}

/** How the terminal shows an apply (src/cli/render/). */
export interface ApplyView {
  /** The manifest's problems, for stderr. */
  issues(issues: readonly ValidationIssue[], manifestFile: string, style: Style): string;
  /**
   * Shows the executor's progress and turns Ctrl-C / SIGTERM into its abort signal while it runs;
   * `resume` is the command a second signal tells the user to run. May load what it draws with first.
   */
  watch(
    ctx: CommandContext,
    jobIds: readonly string[],
    concurrency: number,
    resume: string,
  ): ExecutionWatch | Promise<ExecutionWatch>;
  /** The closing report: counts, credits, where results are, what to do next. */
  summary(summary: ExecutionSummary, facts: ApplySummaryFacts, style: Style): string;
  /** Warnings for other runs of the pipeline left unfinished. */
  unfinishedRuns: UnfinishedRunsRenderer;
}

/** An execution being watched: see {@link ApplyView.watch}. */
export interface ExecutionWatch {
  signal: AbortSignal;
  onEvent(event: ExecutionEvent): void;
  /** The signal that stopped the run, if any. */
  received(): NodeJS.Signals | undefined;
  /** Stops listening for signals and closes the progress view. */
  finish(): void;
}

/** What the closing report says besides the counts. */
export interface ApplySummaryFacts {
  outputDir: string | undefined;
  stateDir: string;
  runId: string;
  /** The commands the next steps name, with the flags that locate this run (./rerun-command.ts). */
  hints: { again: string; resend: string; status: string };
  /** With --simulate the state lives only as long as the in-process simulator. */
  temporaryState?: boolean;
  /**
   * The temporary state root of a simulated apply (its `--state-dir`): the commands that read a run
   * (status, runs, report) find it only when told, so the summary says how (#20.10).
   */
  temporaryStateRoot?: string;
  /** The run's jobs this apply left out (--only, --exclude, --replace-from), by status (./outside-apply.ts). */
  outside?: OutsideThisApply;
}
