import { defineCommand, flag } from './command.js';
import { RUN_FLAG, STATE_FLAGS } from './shared-flags.js';

/**
 * `runner state check|push|pull|lease|prune FILE`: the use cases are src/app/state.ts,
 * state-move.ts and state-prune.ts; the terminal renders the problems.
 */
export const stateCommand = defineCommand({
  name: 'state',
  args: '<action> [manifest]',
  description:
    "A run's state: check its journal (check), move it between its folder and PostgreSQL (push, pull), show or break its lease (lease), delete old runs' state (prune: never their results)",
  flags: [
    RUN_FLAG,
    ...STATE_FLAGS,
    flag('--repair', 'With check: cut the journal at its first bad line, keeping a copy of it whole'),
    flag('--break', 'With lease: end the lease now (its holder stops before its next create)'),
    flag('--json', 'With lease, prune: print JSON'),
    flag(
      '--keep-runs <n>',
      "With prune: keep the pipeline's n newest runs (by start); prune deletes state only, never results",
    ),
    flag(
      '--older-than <age>',
      'With prune: only runs last applied longer ago than this: 30d, 12h, 2w, or a date',
    ),
    flag('--pipeline <name>', "With prune: this pipeline's runs (default: the manifest's)", {
      type: [String],
    }),
    flag(
      '--dry-run',
      'With prune: list what would be deleted (run, start, last apply, jobs, size); delete nothing',
    ),
    flag(
      '--force',
      'With prune: also delete runs with paid jobs unfinished (their results then cannot be followed); never a live one',
    ),
  ],
  globals: [],
  examples: [
    'runner state check pipelines/nightly-social.yaml --run 2026-11-23 --repair',
    'runner state push pipelines/nightly-social.yaml --run 2026-11-23 --state postgres://ci@db/runner',
    'runner state lease pipelines/nightly-social.yaml --run 2026-11-23 --break',
    'runner state prune pipelines/nightly-social.yaml --keep-runs 7 --dry-run',
  ],
  // `runner state check FILE`: the manifest comes after the action.
  manifestArg: 1,
  // push and pull move a run between a folder and a database (check and prune refuse both, in parse).
  bothStatePlaces: true,
  async parse({ args, flags, env }) {
    const [action = '', manifestFile = ''] = args;
    const { parseStateOptions } = await import('../parse/state.js');
    return { action, manifestFile, options: parseStateOptions(action, flags, env) };
  },
  async run(ctx, { action, manifestFile, options }) {
    const { runState } = await import('../../app/state.js');
    const { renderIssues } = await import('../render/issues.js');
    return runState(ctx, action, manifestFile, options, { issues: renderIssues });
  },
});
