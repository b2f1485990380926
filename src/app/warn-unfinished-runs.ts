import type { RunAddress, RunSummary, StateStore } from '../state/index.js';
import type { CommandContext, GlobalOptions } from './context.js';
import type { RepeatedFlags } from './rerun-command.js';

/**
 * Other runs of the pipeline that left paid jobs open or results unsaved (a crashed apply): named, with
 * the command that finishes each (issue 20 item 7). Apply calls it after its run, so it adds nothing
 * before the first create; reading the other runs cannot fail the apply.
 */
export async function warnOfUnfinishedRuns(
  ctx: Pick<CommandContext, 'output' | 'global'>,
  /** The flags of the apply as given: the hint repeats its state folder and vars. */
  options: RepeatedFlags,
  /** The run's state (the other runs are read there). */
  store: StateStore,
  /** The run applied (the others are warned of). */
  run: RunAddress,
  /** The warning lines for the runs found (src/cli/render/unfinished-runs.ts). */
  render: UnfinishedRunsRenderer,
): Promise<void> {
  try {
    const { runs } = await store.listRuns({ ...run, except: run.runId });
    const where = { manifestFile: run.manifestFile, options, global: ctx.global };
    for (const line of render(runs, where, ctx.output.style)) ctx.output.err(line);
  } catch (error) {
    ctx.output.err(
      `${ctx.output.style.yellow('warning')} could not look for other runs left unfinished: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** Renders the warnings for runs left unfinished; empty when every run is finished. */
export type UnfinishedRunsRenderer = (
  runs: readonly RunSummary[],
  where: {
    manifestFile: string;
    options: RepeatedFlags;
    global: Pick<GlobalOptions, 'simulate' | 'baseUrl' | 'apiKeyFile'>;
  },
  style: CommandContext['output']['style'],
) => string[];
