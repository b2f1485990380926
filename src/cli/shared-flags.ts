import type { CAC } from 'cac';

/**
 * Flags shared by several commands, declared once here. This file imports nothing heavy: main.ts
 * loads it for every run, `runner --help` included; the flags are read by
 * src/cli/parse/common.ts (readTargeting, readVarFlags).
 */

/** Commands that take `--only` / `--exclude`, and whether they take `--replace`. */
const TARGETED_COMMANDS: Record<string, { replace: boolean }> = {
  validate: { replace: false },
  plan: { replace: true },
  apply: { replace: true },
  status: { replace: false },
  render: { replace: false },
  report: { replace: false },
};

/** Commands that render templates, so take `--var` and `--var-file`. */
const VAR_COMMANDS = new Set(['validate', 'plan', 'apply', 'status', 'render', 'report']);

/**
 * Adds the targeting flags (`--only`, `--exclude`, `--replace`, `--replace-from`) and the var flags (`--var`,
 * `--var-file`) to the commands declared on `cli` that take them. `type: [String]` makes every one
 * repeatable and keeps ids like `0012` as written.
 */
export function declareSharedFlags(cli: CAC): void {
  for (const command of cli.commands) {
    const targeted = TARGETED_COMMANDS[command.name];
    if (targeted !== undefined) {
      command
        .option('--only <glob>', 'Only jobs whose id matches (repeatable; * and ? wildcards)', {
          type: [String],
        })
        .option('--exclude <glob>', 'Leave out jobs whose id matches (repeatable; * and ? wildcards)', {
          type: [String],
        });
      if (targeted.replace) {
        command.option(
          '--replace <id>',
          'Run this done job again: a new attempt with a new key, its old files superseded (repeatable)',
          { type: [String] },
        );
        command.option(
          '--replace-from <file>',
          "Run again exactly the jobs a review rejected: a decisions file exported from the run's report.html (at most 16 MiB)",
          { type: [String] },
        );
      }
    }
    if (VAR_COMMANDS.has(command.name)) {
      command
        .option('--var <key=value>', 'Override a manifest var (repeatable; wins over --var-file)', {
          type: [String],
        })
        .option('--var-file <file>', 'Override manifest vars from a YAML map of name: value (repeatable)', {
          type: [String],
        });
    }
  }
}
