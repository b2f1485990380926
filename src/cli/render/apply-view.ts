import type { ApplyView, ExecutionWatch } from '../../app/apply-effects.js';
import type { CommandContext } from '../../app/context.js';
import { handleInterrupts } from '../effects/interrupts.js';
import { renderApplySummary } from './apply-summary.js';
import { renderIssues } from './issues.js';
import { ProgressModel } from './progress-model.js';
import { createProgressReporter } from './progress-view.js';
import { renderUnfinishedRuns } from './unfinished-runs.js';

/**
 * What `runner apply` shows on the terminal (src/cli/commands/apply.ts): the problems, the live
 * progress with Ctrl-C / SIGTERM noted in it, the summary and the runs left unfinished.
 */
export const TERMINAL_APPLY_VIEW: ApplyView = {
  issues: renderIssues,
  watch: watchOnTerminal,
  summary: renderApplySummary,
  unfinishedRuns: renderUnfinishedRuns,
};

/** The live progress view on stderr, with Ctrl-C / SIGTERM noted in it (src/cli/effects/interrupts.ts). */
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
