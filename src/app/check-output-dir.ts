import { readdir } from 'node:fs/promises';
import { RunnerError } from '../errors.js';
import { sweepLeftKeptImages } from '../execute/kept-image-folders.js';
import { openResultsStore } from '../results/open-results-store.js';
import type { ResultsStore } from '../results/results-store.js';
import { describeOutput, isS3Output } from './output-location.js';
import { checkBucketClaim } from './bucket-claim.js';
import {
  checkOutputClaim,
  OUTPUT_CLAIM_FILE,
  type OutputOwner,
  readOutputClaim,
  type StateStore,
} from '../state/index.js';
import { resolveOutputDir, type OutputDirInput } from './apply-options.js';
import type { CommandContext } from './context.js';
import { preflightTargets } from './preflight.js';

/** The run's output folder as apply decided it, and the owner it claims it for. */
export interface RunOutputDir {
  /** A folder's absolute path, or `s3://bucket/prefix`. */
  dir: string;
  /** The bucket's results store, opened and preflighted (absent for a folder: opened when used). */
  bucket?: ResultsStore & { close?(): void };
  /** The folder the run's state recorded, if any. */
  recorded: string | undefined;
  owner: OutputOwner;
  /** When the run first started, if it has (a bucket's claim by a copy of its state is its own). */
  runStart?: number;
}

/**
 * The run's output folder, decided under the lock from its recorded state (issue 20 item 5): checked
 * (again, when the state named another folder than the preflight saw), its claim checked, and an
 * unclaimed folder that already holds files checked against the other runs of the pipeline (a folder
 * of an earlier release, where runs shared one folder): all before the plan is shown, so a folder of
 * another run is refused before anything is asked or paid. The claim itself is written right before
 * the first create (`claimOutputDir`).
 */
export async function checkRunOutputDir(
  ctx: Pick<CommandContext, 'cwd' | 'output'>,
  /** `--output`, when given. */
  outputFlag: string | undefined,
  run: OutputDirInput & {
    manifestFile: string;
    /** The run's state folder. */
    stateDir: string;
    /** Where the run's state lives: the other runs are read there. */
    store: StateStore;
    /** `--state-dir` (the state root) or the state URL, when given. */
    location: { stateDir?: string; stateUrl?: string };
    simulated: boolean;
    /** The folder the preflight before the lock checked for the run's recorded one. */
    preflighted: string | undefined;
    /** When the run first started (its first `run` record), if it has: see `judgeReadClaim`. */
    runStart?: number | undefined;
  },
): Promise<RunOutputDir> {
  const dir = resolveOutputDir(ctx, outputFlag, run);
  const owner: OutputOwner = {
    pipeline: run.pipeline,
    runId: run.runId,
    stateDir: run.stateDir,
    ...(run.location.stateUrl === undefined ? {} : { stateUrl: run.location.stateUrl }),
    ...(run.simulated ? { simulated: true } : {}),
  };
  const warn = (message: string) => ctx.output.err(`${ctx.output.style.yellow('warning')} ${message}`);
  if (run.recordedOutputDir !== undefined && run.recordedOutputDir !== dir) {
    warn(
      `run "${run.runId}" recorded ${describeOutput(run.recordedOutputDir)}; this machine uses ${describeOutput(dir)} (resolved here: --output, RUNNER_OUTPUT, runner.config.yaml or beside the manifest). Results missing there are fetched again while their links live.`,
    );
  }
  if (isS3Output(dir)) {
    const bucket = await preflightBucket(dir);
    try {
      const warning = await checkBucketClaim(bucket, owner, run.runStart);
      if (warning !== undefined) warn(warning);
    } catch (error) {
      bucket.close?.();
      throw error;
    }
    return {
      dir,
      bucket,
      recorded: run.recordedOutputDir,
      owner,
      ...(run.runStart === undefined ? {} : { runStart: run.runStart }),
    };
  }
  if (run.recordedOutputDir !== run.preflighted)
    await preflightTargets([{ path: dir, kind: 'dir', what: 'output folder' }], ctx.cwd);
  const warning = await checkOutputClaim(dir, owner);
  if (warning !== undefined) warn(warning);
  if (!run.simulated) await refuseFolderOfOtherRuns(dir, run);
  return { dir, recorded: run.recordedOutputDir, owner };
}

/**
 * A bucket output (#30.3): its store's preflight puts then deletes a probe object, before the plan is
 * shown and before anything is paid (a bucket that does not exist, denied, an endpoint that does not
 * answer: exit 1, naming the bucket). The run's lease fences the writers of one state; the prefix's
 * claim (`bucket-claim.ts`), checked next, keeps a run of another state out.
 */
async function preflightBucket(dir: string): Promise<NonNullable<RunOutputDir['bucket']>> {
  // A bucket apply keeps its large images in private folders; those a SIGKILL left (a pid of this
  // host that no longer runs) are removed now, before this run makes its own (#30).
  await sweepLeftKeptImages();
  const bucket = (await openResultsStore(dir, '/')) as NonNullable<RunOutputDir['bucket']>;
  try {
    await bucket.preflight();
  } catch (error) {
    bucket.close?.();
    throw error;
  }
  return bucket;
}

/**
 * An unclaimed folder with files in it may hold results of runs of earlier releases (they shared one
 * folder per pipeline, and wrote no claim): refused when another run of the pipeline in this state
 * folder recorded files there. A new or empty folder has nothing to protect, and is not looked into.
 */
async function refuseFolderOfOtherRuns(
  dir: string,
  run: {
    manifestFile: string;
    pipeline: string;
    runId: string;
    store: StateStore;
    location: { stateDir?: string; stateUrl?: string };
  },
): Promise<void> {
  if ((await readOutputClaim(dir)) !== undefined || !(await holdsFiles(dir))) return;
  const { runs } = await run.store.listRuns({
    manifestFile: run.manifestFile,
    pipeline: run.pipeline,
    ...run.location,
    except: run.runId,
    findFiles: true,
    filesIn: dir,
  });
  // A folder of the same path may be a new one (a CI checkout each night, its state restored): only
  // files still there that a run recorded are protected.
  const others = runs.filter(
    (other) =>
      (other.filesDir === dir || other.outputDir === dir) &&
      other.runId !== run.runId &&
      other.keepsFilesIn === true,
  );
  if (others.length === 0) return;
  throw new RunnerError(
    'INVALID_INPUT',
    `The output folder ${dir} cannot be used by run "${run.runId}": it holds files recorded by run${others.length === 1 ? '' : 's'} ${others.map((other) => `"${other.runId}"`).join(', ')} of pipeline "${run.pipeline}". Each run writes its own folder, so that no run overwrites (or moves aside) another run's paid results. Nothing was created or paid.`,
    {
      hint: `Give this run a folder of its own (leave --output out: the default is a folder per run), or move those files away first. (A folder claimed in ${OUTPUT_CLAIM_FILE} is never shared.)`,
    },
  );
}

async function holdsFiles(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).length > 0;
  } catch {
    return false;
  }
}
