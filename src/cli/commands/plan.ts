import type { PlanView } from '../../app/plan.js';
import { defineCommand, flag, SERVICE_FLAGS } from './command.js';
import {
  MANIFEST_FLAGS,
  REPLACE_FLAGS,
  runFlag,
  STATE_FLAGS,
  TARGETING_FLAGS,
  VAR_FLAGS,
} from './shared-flags.js';

/**
 * `runner plan FILE`: the use case is src/app/plan.ts (several manifests, a glob or `--compare-to`:
 * src/app/plan-many.ts); the terminal gives it the service and shows the manifest's problems (as
 * GitHub Actions annotations too, when run there).
 */
export const planCommand = defineCommand({
  name: 'plan',
  args: '<manifest> [...more]',
  description:
    'Dry run: what apply would do and what it would cost, against the balance (several manifests or a glob: one report of each and the sum)',
  flags: [
    ...MANIFEST_FLAGS,
    flag('--format <format>', 'text, json or markdown', { default: 'text' }),
    flag('--out <file>', 'Also write the report to a file (json: only there, and a summary on stdout)'),
    runFlag('Compare against the state of this run id'),
    ...STATE_FLAGS,
    flag('--offline', 'Do not contact the service (needs --catalog; the balance is not checked)'),
    flag('--max-credits <n>', "Check against this cap on the run's spending, as apply --max-credits does"),
    flag('--retry-failed', 'Count jobs that failed permanently as to run, as apply --retry-failed does'),
    flag('--resend-uncertain', 'Count unanswered creates as to run, as apply --resend-uncertain does'),
    flag('--show <what>', '"payloads": also print each job\'s rendered prompt and params'),
    flag('--out-plan <file>', 'Save the exact plan (JSON, mode 0600) for `runner apply FILE`'),
    flag('--output <dir>', 'With --out-plan: the download folder the plan fixes for apply'),
    flag('--compare-to <file>', 'Print the cost diff against this plan report (from `plan --format json`)'),
    flag(
      '--fail-on-increase <credits>',
      'With --compare-to: exit 3 when the change adds more credits than this (N/run, N/night, N/month: the unit; as diff)',
    ),
    flag(
      '--fail-on-increase-percent <n>',
      'With --compare-to: exit 3 when the change adds more than n % (n/run, n/month: the unit)',
    ),
    flag(
      '--allow-empty',
      'A glob that matches nothing (or a missing manifest) is a side with no manifests, not an error: the base of the first pull request',
    ),
    flag(
      '--catalog-fallback <file>',
      'Price with this catalog when the --catalog file does not exist here (the base commit before catalog.json)',
    ),
    ...TARGETING_FLAGS,
    ...REPLACE_FLAGS,
    ...VAR_FLAGS,
  ],
  globals: SERVICE_FLAGS,
  examples: [
    'runner plan pipelines/nightly-social.yaml --format markdown --out plan.md',
    "runner plan 'pipelines/*.yaml' --format json --out base.json",
    "runner plan 'pipelines/*.yaml' --compare-to base.json --fail-on-increase-percent 20",
  ],
  manifestArg: 0,
  async parse({ args, flags }) {
    const { parsePlanManyOptions, parsePlanOptions, wantsPlanSet } = await import('../parse/plan.js');
    // With --compare-to the output is a diff: its formats are the diff's.
    return wantsPlanSet(args, flags)
      ? { set: true as const, files: args, options: parsePlanManyOptions(flags) }
      : { set: false as const, manifestFile: args[0] ?? '', options: parsePlanOptions(flags) };
  },
  async run(ctx, asked) {
    const { connect } = await import('../effects/connect.js');
    const { isGithubActions, renderAnnotations } = await import('../render/annotations.js');
    const { renderIssues } = await import('../render/issues.js');
    const view: PlanView = {
      issues: renderIssues,
      annotations: (issues, manifestFile, env) =>
        isGithubActions(env) ? renderAnnotations(issues, manifestFile) : [],
    };
    if (asked.set) {
      const { runPlanMany } = await import('../../app/plan-many.js');
      const { emitDiff } = await import('../render/diff-output.js');
      const { options } = asked;
      return runPlanMany(ctx, asked.files, options, {
        connect: (context) => connect(context),
        view,
        emitDiff: (diff, files) => emitDiff(ctx, diff, options.format, options.out, files),
      });
    }
    const { runPlan } = await import('../../app/plan.js');
    return runPlan(ctx, asked.manifestFile, asked.options, { connect: (context) => connect(context), view });
  },
});
