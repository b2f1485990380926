import { chmod, readFile, writeFile } from 'node:fs/promises';
import { dirname, relative, resolve, sep } from 'node:path';
import { RunnerError, UsageError } from '../errors.js';
import { PRIVATE_FILE_MODE } from '../file-modes.js';
import {
  compareManifest,
  compareSavedPlan,
  isSavedPlan,
  sha256,
  SAVED_PLAN_KIND,
  type SavedPlan,
} from '../plan/saved-plan.js';
import type { Plan } from '../plan/types.js';
import type { Model } from '../service/types.js';
import { parseStringOption } from './parse-options.js';

/** Changes listed one by one when apply refuses a saved plan; the rest are counted. */
const LISTED_CHANGES = 20;

/** Writes a saved plan, readable by its owner only (mode 0600): it holds every prompt. */
export async function writeSavedPlan(file: string, plan: SavedPlan): Promise<void> {
  try {
    await writeFile(file, `${JSON.stringify(plan, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
    // `mode` applies only when the file is created; an older file keeps its mode otherwise.
    await chmod(file, PRIVATE_FILE_MODE);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'write error';
    throw new UsageError(`Cannot write --out-plan ${file}: ${code}.`, {
      cause: error,
      hint: 'Pass a path in an existing, writable folder.',
    });
  }
}

/** The manifest path to store in a plan written to `planFile`: relative to the plan's folder, with `/`. */
export function manifestPathForPlan(planFile: string, manifestFile: string): string {
  return relative(dirname(resolve(planFile)), resolve(manifestFile))
    .split(sep)
    .join('/');
}

/**
 * The saved plan in `file`, told apart from a manifest by its content (a JSON object with
 * `kind: "runner-plan"`), whatever the file is called; undefined for anything else (a manifest).
 */
export async function readSavedPlanIfAny(file: string): Promise<SavedPlan | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined; // Not readable: the manifest path reports it.
  }
  if (!text.trimStart().startsWith('{') || !text.includes(SAVED_PLAN_KIND)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (isSavedPlan(value)) return value;
  const kind = (value as { kind?: unknown } | null)?.kind;
  if (kind === SAVED_PLAN_KIND) {
    throw new RunnerError('INVALID_INPUT', `${file} is a saved plan this runner cannot read.`, {
      hint: 'Make the plan again with this version: `runner plan MANIFEST --out-plan FILE`.',
    });
  }
  return undefined;
}

/**
 * The manifest path and flags for applying a saved plan: the plan fixes the run, the targeting and the
 * vars; giving them again is a usage error rather than a silent override.
 */
export function savedPlanInputs(
  planFile: string,
  saved: SavedPlan,
  options: Record<string, unknown>,
): { manifestFile: string; options: Record<string, unknown> } {
  const fixed = ['only', 'exclude', 'replace', 'var', 'varFile', 'maxJobs'].filter(
    (name) => options[name] !== undefined,
  );
  if (fixed.length > 0) {
    throw new UsageError(
      `A saved plan fixes its targeting and vars; remove ${fixed.map(flagName).join(', ')} or make a new plan.`,
    );
  }
  const run = parseStringOption(options.run);
  if (run !== undefined && run !== saved.runId) {
    throw new UsageError(`The saved plan is for run "${saved.runId}", not "${run}".`);
  }
  const { targeting, vars, maxJobs } = saved.inputs;
  return {
    manifestFile: resolve(dirname(resolve(planFile)), saved.manifest.path),
    options: {
      ...options,
      run: saved.runId,
      only: targeting.only,
      exclude: targeting.exclude,
      replace: targeting.replace,
      var: Object.entries(vars).map(([name, value]) => `${name}=${String(value)}`),
      ...(maxJobs === undefined ? {} : { maxJobs }),
    },
  };
}

function flagName(option: string): string {
  return `--${option.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/**
 * Refuses (exit 2, nothing created) when the manifest, a used model or a job changed since the plan.
 * Without `plan` and `catalog` only the manifest is compared: a changed manifest is refused as such
 * before it is even validated.
 */
export async function refuseChangedPlan(
  planFile: string,
  saved: SavedPlan,
  now: { manifestFile: string; plan?: Plan; catalog?: readonly Model[] },
): Promise<void> {
  let manifestSha256: string;
  try {
    manifestSha256 = sha256(await readFile(now.manifestFile));
  } catch {
    throw new RunnerError(
      'INVALID_INPUT',
      `Not applying ${planFile}: its manifest ${now.manifestFile} cannot be read.`,
      {
        hint: 'Apply the plan from a checkout that holds the manifest at the same place relative to the plan.',
      },
    );
  }
  const changes =
    now.plan === undefined || now.catalog === undefined
      ? compareManifest(saved, manifestSha256)
      : compareSavedPlan(saved, { manifestSha256, plan: now.plan, catalog: now.catalog });
  if (changes.length === 0) return;
  const listed = changes.slice(0, LISTED_CHANGES).map((change) => `\n  - ${change}`);
  const more = changes.length > LISTED_CHANGES ? `\n  … and ${changes.length - LISTED_CHANGES} more` : '';
  throw new RunnerError(
    'INVALID_INPUT',
    `Not applying ${planFile}: ${changes.length} thing${changes.length === 1 ? '' : 's'} changed since the plan was made (${saved.createdAt}):${listed.join('')}${more}\nNo job was created.`,
    { hint: 'Review the change and make a new plan: `runner plan MANIFEST --out-plan FILE`.' },
  );
}
