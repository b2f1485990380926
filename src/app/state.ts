import { RunnerError, UsageError } from '../errors.js';
import { loadManifest } from '../manifest/load-manifest.js';
import { checkRunJournal, locateRunJournal, repairRunJournal, type JournalCheck } from '../state/index.js';
import type { CommandContext } from './context.js';
import type { Outcome } from './outcome.js';
import type { RenderIssues } from './views.js';
import { runStateMove, STATE_MOVE_ACTIONS } from './state-move.js';
import { runStatePrune } from './state-prune.js';
import type { StateCommandOptions } from './state-options.js';

/**
 * `runner state push|pull|lease FILE`: see ./state-move.ts.
 *
 * `runner state check FILE [--run R] [--state-dir S] [--repair]`: replays the run's journal from its
 * first line with every check apply makes and names its first bad line (`journal-damaged`, exit 1), or says it
 * is sound. `--repair` cuts the journal at that line under the state's lock, keeping the whole
 * journal beside it, and removes a snapshot that covers the lines cut (docs/state.md "Run state").
 */
export async function runState(
  ctx: CommandContext,
  action: string,
  manifestFile: string,
  options: StateCommandOptions,
  view: { issues: RenderIssues },
): Promise<Outcome> {
  if (action === 'prune') return runStatePrune(ctx, manifestFile, options, view);
  if (!STATE_MOVE_ACTIONS.has(action) && action !== 'check') {
    throw new UsageError(
      `Unknown action "${action}" of \`runner state\`; the actions are check, push, pull, lease and prune.`,
      { hint: 'runner state check FILE [--run ID] [--state-dir DIR] [--repair]' },
    );
  }
  if (manifestFile === '')
    throw new UsageError(`runner state ${action} needs a manifest: runner state ${action} FILE --run ID.`);
  if (STATE_MOVE_ACTIONS.has(action)) return runStateMove(ctx, action, manifestFile, options, view);
  const { loaded, issues } = await loadManifest(manifestFile);
  if (loaded === undefined) {
    ctx.output.err(view.issues(issues, manifestFile, ctx.output.style));
    return 'invalid-input';
  }
  const { runId } = options;
  const journal = await locateRunJournal({
    manifestFile,
    pipeline: loaded.manifest.name,
    runId,
    ...options.state,
  });
  if (!journal.exists) {
    throw new RunnerError(
      'STATE_NOT_FOUND',
      `Run "${runId}" of pipeline "${loaded.manifest.name}" has no state: ${journal.dir} holds no journal.`,
      { hint: `See the runs that have state with \`runner runs ${manifestFile}\`.` },
    );
  }
  const found = await checkRunJournal(journal);
  report(ctx, found);
  if (found.problem === undefined) return 'done';
  if (!options.repair) {
    ctx.output.err(
      `Nothing was changed. \`--repair\` cuts the journal at line ${found.problem.line} (keeping a copy of it whole): the ${found.lines} lines before it are kept; jobs recorded only after it are followed again from what the service still knows, or reported uncertain.`,
    );
    return 'journal-damaged';
  }
  const cut = await repairRunJournal(journal);
  if (cut === undefined) return 'done';
  ctx.output.out(
    `Cut ${journal.path} at line ${cut.problem.line} (byte ${cut.problem.offset}); ${cut.lines} lines kept. The journal as it was is in ${cut.copy}.${cut.snapshotRemoved ? ' The snapshot covered lines past the cut and was removed.' : ''}`,
  );
  return 'done';
}

function report(ctx: CommandContext, found: JournalCheck): void {
  for (const warning of found.warnings) ctx.output.err(`${ctx.output.style.yellow('warning')} ${warning}`);
  if (found.snapshotProblem !== undefined) {
    ctx.output.err(
      `${ctx.output.style.yellow('warning')} The snapshot beside the journal is not used (${found.snapshotProblem}); the journal is replayed whole instead. Deleting it is safe.`,
    );
  }
  if (found.problem === undefined) {
    ctx.output.out(`${found.journalPath}: ${found.lines} lines, every record sound.`);
    return;
  }
  ctx.output.out(`${found.journalPath}:${found.problem.line}: ${found.problem.reason}`);
}
