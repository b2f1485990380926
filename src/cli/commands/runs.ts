import { defineCommand, flag } from './command.js';
import { STATE_FLAGS } from './shared-flags.js';

/** `runner runs FILE`: the use case is src/app/runs.ts; the terminal renders what it finds. */
export const runsCommand = defineCommand({
  name: 'runs',
  args: '<manifest>',
  description:
    "List the runs of the manifest's pipeline that have state: id, start, jobs, counts, credits; name runs left with paid jobs open",
  flags: [...STATE_FLAGS, flag('--json', 'Print JSON')],
  globals: [],
  examples: ['runner runs pipelines/nightly-social.yaml --state-dir .runner-state'],
  manifestArg: 0,
  async parse({ args, flags }) {
    const { parseRunsOptions } = await import('../parse/runs.js');
    return { manifestFile: args[0] ?? '', options: parseRunsOptions(flags) };
  },
  async run(ctx, { manifestFile, options }) {
    const { runRuns } = await import('../../app/runs.js');
    const { renderIssues } = await import('../render/issues.js');
    const { renderRuns } = await import('../render/runs.js');
    const { renderUnfinishedRuns } = await import('../render/unfinished-runs.js');
    return runRuns(ctx, manifestFile, options, { renderIssues, renderRuns, renderUnfinishedRuns });
  },
});
