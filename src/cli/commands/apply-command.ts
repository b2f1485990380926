import { systemClock } from '../../clock.js';
import { runApply } from '../../app/apply.js';
import type { ApplyView, ExecutionWatch } from '../../app/apply-effects.js';
import type { CommandContext } from '../../app/context.js';
import type { Outcome } from '../../app/outcome.js';
import { connect } from '../connect.js';
import type { Flags } from '../parse/common.js';
import { parseApplyOptions } from '../parse/apply.js';
import { handleInterrupts } from '../interrupts.js';
import { createLogger } from '../logger.js';
import { renderApplySummary } from '../render/apply-summary.js';
import { renderIssues } from '../render/issues.js';
import { ProgressModel } from '../render/progress-model.js';
import { createProgressReporter } from '../render/progress-view.js';
import { renderUnfinishedRuns } from '../render/unfinished-runs.js';

/**
 * `runner apply FILE|PLAN`: the use case is src/app/apply.ts; the terminal gives it the service, the
 * log, the system clock and its views (problems, live progress with Ctrl-C / SIGTERM, the summary).
 */
export async function runApplyCommand(ctx: CommandContext, args: string[], flags: Flags): Promise<Outcome> {
  const [target = ''] = args;
  return runApply(ctx, target, parseApplyOptions(flags, ctx.env), {
    connect,
    createLogger,
    clock: systemClock,
    view: TERMINAL_VIEW,
  });
}

const TERMINAL_VIEW: ApplyView = {
  issues: renderIssues,
  watch: watchOnTerminal,
  summary: renderApplySummary,
  unfinishedRuns: renderUnfinishedRuns,
};

/** The live progress view on stderr, with Ctrl-C / SIGTERM noted in it (src/cli/interrupts.ts). */
async function watchOnTerminal(
  ctx: CommandContext,
  jobIds: readonly string[],
  concurrency: number,
  resume: string,
): Promise<ExecutionWatch> {
  const model = new ProgressModel(jobIds, concurrency, Date.now);
  const progress = await createProgressReporter(ctx.output, model);
  const interrupts = handleInterrupts((line) => progress.note(line), resume);
  return {
    signal: interrupts.signal,
    onEvent: (event) => progress.onEvent(event),
    received: () => interrupts.received(),
    finish: () => {
      interrupts.dispose();
      progress.finish();
    },
  };
}
