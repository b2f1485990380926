import type { CAC, Command } from 'cac';
import type { ValidationIssue } from '../manifest/types.js';
import { selectJobs, type Selection, type Targeting } from '../plan/select-jobs.js';

/**
 * Declares `--only` and `--exclude` (and, for apply, `--replace`) on a command: one declaration shared
 * by validate, plan, apply and status. `type: [String]` keeps ids like `0012` as written and makes
 * every flag repeatable.
 */
export function declareTargeting(command: Command, options: { replace?: boolean } = {}): Command {
  command
    .option('--only <glob>', 'Only jobs whose id matches (repeatable; * and ? wildcards)', { type: [String] })
    .option('--exclude <glob>', 'Leave out jobs whose id matches (repeatable; * and ? wildcards)', {
      type: [String],
    });
  if (options.replace === true) {
    command.option(
      '--replace <id>',
      'Run this done job again: a new attempt with a new key, its old files superseded (repeatable)',
      { type: [String] },
    );
  }
  return command;
}

/** Commands that take targeting flags, and whether they take `--replace`. */
const TARGETED_COMMANDS: Record<string, { replace: boolean }> = {
  validate: { replace: false },
  plan: { replace: true },
  apply: { replace: true },
  status: { replace: false },
  render: { replace: false },
};

/** Adds the targeting flags to every command of {@link TARGETED_COMMANDS} declared on `cli`. */
export function declareTargetingFlags(cli: CAC): void {
  for (const command of cli.commands) {
    const entry = TARGETED_COMMANDS[command.name];
    if (entry !== undefined) declareTargeting(command, entry);
  }
}

/** The targeting flags of a command (absent flags are empty lists). */
export function readTargeting(options: Record<string, unknown>): Targeting {
  return { only: list(options.only), exclude: list(options.exclude), replace: list(options.replace) };
}

function list(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  const items: unknown[] = Array.isArray(value) ? value : [value];
  return items.filter((item) => item !== undefined && item !== '').map(String);
}

/**
 * Applies targeting to the expanded jobs; a pattern that matches nothing is an error issue (reported
 * with the manifest's other problems), since a mistyped `--exclude` would run jobs meant to be left out.
 */
export function selectTargets<T extends { id: string }>(
  jobs: readonly T[],
  targeting: Targeting,
): Selection<T> & { issues: ValidationIssue[] } {
  const selection = selectJobs(jobs, targeting);
  const issues = selection.problems.map((message): ValidationIssue => ({
    severity: 'error',
    code: 'unmatched-target',
    message,
    hint: 'job ids are the expanded ids; `runner plan FILE --format json` lists them',
  }));
  return { ...selection, issues };
}
