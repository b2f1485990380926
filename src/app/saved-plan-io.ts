import { chmod, readFile, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { RunnerError, UsageError } from '../errors.js';
import { PRIVATE_FILE_MODE } from '../file-modes.js';
import {
  compareDecisions,
  compareManifest,
  compareSavedPlan,
  isSavedPlan,
  sha256,
  SAVED_PLAN_KIND,
  SAVED_PLAN_VERSION,
  type SavedPlan,
} from '../plan/saved-plan.js';
import type { JobCost } from '../plan/cost-report.js';
import type { Plan } from '../plan/types.js';
import type { Model } from '../service/types.js';
import { runnerDirFor } from '../state/index.js';
import type { ApplyOptions } from './apply-options.js';
import { twoStatePlaces } from './run-options.js';
import { readableUtcTime } from '../readable-time.js';

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
 * A folder to store in a plan written to `planFile` (the state or download folder): as given when
 * absolute (a CI cache path stays put), else relative to the plan's folder with `/`, like the manifest.
 */
export function folderPathForPlan(planFile: string, folder: string, cwd: string): string {
  if (isAbsolute(folder)) return folder;
  return (
    relative(dirname(resolve(cwd, planFile)), resolve(cwd, folder))
      .split(sep)
      .join('/') || '.'
  );
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
  const { kind, schemaVersion } = (value ?? {}) as { kind?: unknown; schemaVersion?: unknown };
  if (kind === SAVED_PLAN_KIND) {
    const why =
      typeof schemaVersion === 'number' && schemaVersion < SAVED_PLAN_VERSION
        ? `it is of saved plan version ${schemaVersion}, made by an earlier runner, which did not record the state, download folder and options the plan was made with (this runner applies version ${SAVED_PLAN_VERSION})`
        : typeof schemaVersion === 'number' && schemaVersion > SAVED_PLAN_VERSION
          ? `it is of saved plan version ${schemaVersion}, made by a newer runner (this one reads version ${SAVED_PLAN_VERSION})`
          : `it is not a saved plan of version ${SAVED_PLAN_VERSION} (schemaVersion ${JSON.stringify(schemaVersion)}, or fields missing)`;
    throw new RunnerError('INVALID_INPUT', `Not applying ${file}: ${why}. No job was created.`, {
      hint: 'Make the plan again with this runner: `runner plan MANIFEST --out-plan FILE` (with the same --run, --state-dir or --state, and other options).',
    });
  }
  return undefined;
}

/**
 * `validate` and `plan` take a manifest: given a saved plan (told by its content), they say so
 * instead of listing the plan's JSON as a manifest's schema errors.
 */
export async function refuseSavedPlanAsManifest(file: string, command: string): Promise<void> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return;
  }
  if (!text.trimStart().startsWith('{') || !text.includes(SAVED_PLAN_KIND)) return;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return;
  }
  const plan = (value ?? {}) as { kind?: unknown; manifest?: { path?: unknown } };
  if (plan.kind !== SAVED_PLAN_KIND) return;
  const manifest =
    typeof plan.manifest?.path === 'string'
      ? resolve(dirname(resolve(file)), plan.manifest.path)
      : 'MANIFEST';
  throw new UsageError(
    `${file} is a saved plan (made by \`runner plan --out-plan\`), not a manifest: \`runner ${command}\` reads manifests.`,
    {
      hint: `Apply the plan with \`runner apply ${file}\`, or ${command} its manifest: \`runner ${command} ${manifest}\`.`,
    },
  );
}

/**
 * The manifest path and options for applying a saved plan: the plan fixes the run, the state and
 * download folders, the targeting, the vars, `--max-credits`, `--retry-failed` and
 * `--resend-uncertain`. Giving those again is allowed only when they say the same (RUNNER_STATE_DIR
 * counts as given: the state decides what is paid); anything else is refused (exit 2), never a silent
 * override. The options returned are the command line's with the plan's put in, the flags a hint
 * repeats included (a hint then names what the plan fixed, as if it had been given), so apply reads a
 * saved plan's options exactly as it reads a command line's. `outputRoot` is the plan's RUNNER_OUTPUT,
 * for apply to use in place of its own.
 */
export function savedPlanInputs(
  planFile: string,
  saved: SavedPlan,
  options: ApplyOptions,
  cwd: string,
): { manifestFile: string; options: ApplyOptions; outputRoot: string | undefined } {
  const given = {
    only: options.targeting.only.length > 0,
    exclude: options.targeting.exclude.length > 0,
    replace: options.targeting.replace.length > 0,
    replaceFrom: options.replaceFrom !== undefined,
    var: options.varFlags.vars.length > 0,
    varFile: options.varFlags.varFiles.length > 0,
    maxJobs: options.maxJobs !== undefined,
  };
  const fixed = Object.entries(given).flatMap(([name, isGiven]) => (isGiven ? [name] : []));
  if (fixed.length > 0) {
    throw new UsageError(
      `A saved plan fixes its targeting and vars; remove ${fixed.map(flagName).join(', ')} or make a new plan.`,
    );
  }
  // `--run` as given (the typed runId is "default" when it was not).
  const run = options.repeat.run;
  if (run !== undefined && run !== saved.runId) {
    throw new UsageError(`The saved plan is for run "${saved.runId}", not "${run}".`);
  }
  const planDir = dirname(resolve(cwd, planFile));
  const manifestFile = resolve(planDir, saved.manifest.path);
  const { targeting, vars, maxJobs, maxCredits, retryFailed, resendUncertain } = saved.inputs;
  const stateRoot = saved.state.dir === undefined ? undefined : resolve(planDir, saved.state.dir);
  const output = saved.output === undefined ? undefined : resolve(planDir, saved.output);
  const contradictions: string[] = [];
  const givenState = options.state.stateDir;
  const planState = stateRoot ?? runnerDirFor(manifestFile);
  if (givenState !== undefined && resolve(cwd, givenState) !== planState) {
    contradictions.push(
      `--state-dir (or RUNNER_STATE_DIR) ${givenState}: the plan was made against the state in ${planState}`,
    );
  }
  const givenOutput = options.output;
  if (givenOutput !== undefined && resolve(cwd, givenOutput) !== output) {
    contradictions.push(
      `--output ${givenOutput}: the plan downloads to ${output ?? "apply's default folder (give --output to `runner plan` to choose one)"}`,
    );
  }
  const givenCap = options.maxCredits;
  if (givenCap !== undefined && givenCap !== maxCredits) {
    contradictions.push(
      `--max-credits ${givenCap}: the plan was made with ${maxCredits === undefined ? 'no --max-credits' : `--max-credits ${maxCredits}`}`,
    );
  }
  if (options.retryFailed && !retryFailed)
    contradictions.push('--retry-failed: the plan was made without it');
  if (options.resendUncertain && !resendUncertain)
    contradictions.push('--resend-uncertain: the plan was made without it');
  if (contradictions.length > 0) {
    throw new UsageError(
      `Not applying ${planFile}: options given to apply contradict the saved plan:${contradictions.map((line) => `\n  - ${line}`).join('')}\nNo job was created.`,
      {
        hint: `Apply the plan as it was made (\`runner apply ${planFile}\` with none of these), or make a new plan with these options.`,
      },
    );
  }
  // The plan's state folder and a --state database given now name two places.
  const { stateUrl } = options.state;
  if (stateRoot !== undefined && stateUrl !== undefined) throw twoStatePlaces();
  const varList = Object.entries(vars).map(([name, value]) => `${name}=${String(value)}`);
  return {
    manifestFile,
    outputRoot: saved.outputRoot === undefined ? undefined : resolve(planDir, saved.outputRoot),
    options: {
      ...withoutPlanFixed(options),
      runId: saved.runId,
      state: stateRoot !== undefined ? { stateDir: stateRoot } : stateUrl !== undefined ? { stateUrl } : {},
      ...(output === undefined ? {} : { output }),
      ...(maxCredits === undefined ? {} : { maxCredits }),
      retryFailed,
      resendUncertain,
      targeting: { only: targeting.only, exclude: targeting.exclude, replace: targeting.replace },
      varFlags: { vars: varList, varFiles: [] },
      ...(maxJobs === undefined ? {} : { maxJobs }),
      repeat: {
        run: saved.runId,
        stateDir: stateRoot,
        // The plan records no database: the one given now is where its run's state is (#31.1).
        state: stateUrl,
        output,
        var: varList,
        only: targeting.only,
        exclude: targeting.exclude,
        maxCredits: maxCredits === undefined ? undefined : String(maxCredits),
        maxJobs: maxJobs === undefined ? undefined : String(maxJobs),
      },
    },
  };
}

/** The command line's options without those the plan fixes (the plan's are put in their place). */
function withoutPlanFixed(options: ApplyOptions): ApplyOptions {
  const { output: _output, maxCredits: _maxCredits, maxJobs: _maxJobs, ...rest } = options;
  return rest;
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
    `Not applying ${planFile}: ${changes.length} thing${changes.length === 1 ? '' : 's'} changed since the plan was made (${readableUtcTime(saved.createdAt)}):${listed.join('')}${more}\nNo job was created.`,
    { hint: 'Review the change and make a new plan: `runner plan MANIFEST --out-plan FILE`.' },
  );
}

/**
 * Refuses (exit 2, nothing created), Terraform's "saved plan is stale", when apply would create a job
 * the saved plan did not: the state changed since the plan was made, or apply reads another state.
 * Returns a note when some of the plan's jobs are no longer to run (an earlier apply of the same plan
 * made them): the rest runs, spending less than the plan said, never more.
 */
export function refuseStalePlan(
  planFile: string,
  saved: SavedPlan,
  now: {
    jobs: Iterable<Pick<JobCost, 'id' | 'state' | 'toRun'>>;
    stateDir: string;
    /** The `runner plan` command that makes the plan again against this state (its --run, --state…). */
    planAgain: string;
  },
): string | undefined {
  const { stale, settled } = compareDecisions(saved, now.jobs);
  const plannedToRun = saved.jobs.filter((job) => job.toRun).length;
  if (stale.length > 0) {
    const listed = stale
      .slice(0, LISTED_CHANGES)
      .map((job) => `\n  - ${job.id}: ${job.planned} in the plan, ${job.now} now`);
    const more = stale.length > LISTED_CHANGES ? `\n  … and ${stale.length - LISTED_CHANGES} more` : '';
    throw new RunnerError(
      'INVALID_INPUT',
      `Not applying ${planFile}: the saved plan is stale. It creates ${plannedToRun} of ${saved.jobs.length} jobs; against the state in ${now.stateDir} apply would also create ${stale.length} the plan did not:${listed.join('')}${more}\nNo job was created.`,
      {
        hint: `The run state changed since the plan was made (or this is another state). Make a new plan against it: \`${now.planAgain}\`.`,
      },
    );
  }
  if (settled.length === 0) return undefined;
  return `${settled.length} of the plan's ${plannedToRun} jobs to create were made since the plan (an earlier apply of it); they are not created again.`;
}
