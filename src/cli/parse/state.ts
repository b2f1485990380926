import { UsageError } from '../../errors.js';
import { parseNumberOption, parseStringOption } from './values.js';
import { parseStateUrl } from '../../state/state-url.js';
import type { StateCommandOptions } from '../../app/state-options.js';
import type { PruneOptions } from '../../app/state-prune.js';
import { readRunId, readStateDir, type Flags } from './common.js';
import { readLockOptions } from './state-env.js';

/**
 * `runner state ACTION` flags → {@link StateCommandOptions}. `check` and `prune` read the state in one
 * place (`--state-dir` and `--state` together are refused); push, pull and lease move it between the
 * two, so take both.
 */
export function parseStateOptions(
  action: string,
  flags: Flags,
  env: Readonly<Record<string, string | undefined>> = {},
): StateCommandOptions {
  // Both places at once: each flag, else its variable (the variables fill in only one place for the
  // commands that read state from one, src/cli/parse/env-defaults.ts).
  const stateDir = parseStringOption(flags.stateDir) ?? nonEmpty(env.RUNNER_STATE_DIR);
  const stateUrl =
    (typeof flags.state === 'string' ? flags.state : undefined) ?? nonEmpty(env.RUNNER_STATE_URL);
  // A URL carrying a password is refused before anything could show it (#31.12).
  if (stateUrl !== undefined) parseStateUrl(stateUrl);
  return {
    runId: readRunId(flags),
    state:
      action === 'check' || action === 'prune'
        ? readStateDir(flags)
        : {
            ...(stateDir === undefined ? {} : { stateDir }),
            ...(stateUrl === undefined ? {} : { stateUrl }),
          },
    repair: flags.repair === true,
    break: flags.break === true,
    json: flags.json === true,
    prune: { ...readPruneOptions(flags), ...(action === 'prune' ? readLockOptions(env) : {}) },
  };
}

/** `--keep-runs`, `--older-than`, `--pipeline`, `--dry-run`, `--force`, `--json` of `state prune`. */
export function readPruneOptions(flags: Flags): PruneOptions {
  const keepRuns = parseNumberOption('keep-runs', flags.keepRuns, { min: 0, integer: true });
  const olderThan = readOlderThan(parseStringOption(flags.olderThan));
  const pipeline = parseStringOption(flags.pipeline);
  return {
    ...(keepRuns === undefined ? {} : { keepRuns }),
    ...(olderThan === undefined ? {} : { olderThan }),
    ...(pipeline === undefined || pipeline === '' ? {} : { pipeline }),
    dryRun: flags.dryRun === true,
    force: flags.force === true,
    json: flags.json === true,
  };
}

const UNIT_MS: Readonly<Record<string, number>> = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** `--older-than 30d` (h, d, w) or `--older-than 2026-11-01` (a UTC date or an ISO time). */
export function readOlderThan(text: string | undefined): PruneOptions['olderThan'] {
  if (text === undefined) return undefined;
  const span = /^(\d+)([hdw])$/.exec(text.trim());
  if (span !== null) return { ms: Number(span[1]) * (UNIT_MS[span[2] ?? 'd'] ?? 0) };
  const date = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text.trim())
    ? Date.parse(text)
    : NaN;
  if (Number.isFinite(date)) return { before: date };
  throw new UsageError(
    `--older-than expects an age (30d, 12h, 2w) or a date (2026-11-01); received ${JSON.stringify(text)}.`,
  );
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
