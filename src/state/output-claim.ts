import { mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { RunnerError } from '../errors.js';
import { PRIVATE_DIR_MODE } from '../file-modes.js';
import { placeFileWhole, removeDeadWritersTemporaries, replaceFileWhole } from './place-file-whole.js';
import { displayStateUrl } from './state-url.js';
import { claimedRunStart, stateHoldsRun } from './select-state-store.js';

/** The file in an output folder naming the run that writes there. */
export const OUTPUT_CLAIM_FILE = '.runner-run.json';

/** The run an output folder belongs to, as its claim file records it. */
export interface OutputOwner {
  pipeline: string;
  runId: string;
  /**
   * The run's state folder (absolute): two state folders with the same run id are two runs. For a
   * state in a database, how messages name it.
   */
  stateDir: string;
  /**
   * The database holding the run's state (PostgreSQL, its URL without a password); absent: the state
   * is the folder `stateDir`. Two databases, or a database and a folder, are two states (#31.3).
   */
  stateUrl?: string;
  /** A run against the in-process simulator (`--simulate`): its results cost nothing. */
  simulated?: boolean;
}

/** What {@link judgeOutputClaim} decides for a run that would write where `existing` claimed. */
export type ClaimVerdict =
  { verdict: 'mine' } | { verdict: 'take-over'; warning?: string } | { verdict: 'refuse'; reason: string };

/**
 * Whether `owner` may write into a folder that `existing` claimed (issue 20 item 5: one run's results
 * never overwrite, or move aside, files another run recorded). Pure; `stateExists` says whether the
 * claiming run's state (its folder's journal, its records in the database) is still there.
 *
 * - The same run (pipeline, run id and state): its own folder.
 * - Unclaimed, or claimed by a simulated run when this one is simulated too: taken (simulated results
 *   are free, and each `--simulate` apply has a fresh state folder).
 * - The same pipeline and run id whose state is gone (the project moved, the state was deleted):
 *   taken, with a warning, since no state points at those files any more.
 * - Anything else: refused.
 */
export function judgeOutputClaim(
  existing: OutputOwner | undefined,
  owner: OutputOwner,
  stateExists: boolean,
): ClaimVerdict {
  if (existing === undefined) return { verdict: 'take-over' };
  const sameRun = existing.pipeline === owner.pipeline && existing.runId === owner.runId;
  if (sameRun && sameState(existing, owner)) return { verdict: 'mine' };
  if (existing.simulated === true && owner.simulated === true) return { verdict: 'take-over' };
  if (sameRun && !stateExists) {
    return {
      verdict: 'take-over',
      warning: `the output folder was used by run "${existing.runId}" with state in ${existing.stateDir}, which holds ${existing.stateUrl === undefined ? 'no journal' : 'no record of that run'} any more; this run (state in ${owner.stateDir}) takes it over and may replace files of the same names.`,
    };
  }
  const who = `run "${existing.runId}" of pipeline "${existing.pipeline}"`;
  return {
    verdict: 'refuse',
    reason: sameRun
      ? `it holds the results of ${who} with its state in ${existing.stateDir} (this run's state is in ${owner.stateDir})`
      : `it holds the results of ${who}`,
  };
}

/**
 * Checks that the run may write into `dir` (see {@link judgeOutputClaim}) without writing anything;
 * throws the refusal (exit 2). Returns a warning when the run will take the folder over.
 */
export async function checkOutputClaim(
  dir: string,
  owner: OutputOwner,
  what = 'The output folder',
): Promise<string | undefined> {
  const decision = await decide(dir, shownOwner(owner));
  if (decision.verdict === 'refuse') throw refusal(dir, decision.reason, what);
  return decision.verdict === 'take-over' ? decision.warning : undefined;
}

/**
 * Claims `dir` for the run before its first create: writes the claim file (created exclusively, so
 * of two runs racing for one folder one wins and the other is refused), or checks the one there.
 */
export async function claimOutputDir(
  dir: string,
  owner: OutputOwner,
  what = 'The output folder',
): Promise<string | undefined> {
  try {
    return await writeClaim(dir, shownOwner(owner), what);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (error instanceof RunnerError || code === undefined) throw error;
    // A full disk (ENOSPC), a read-only mount: the run's results could not be saved either.
    throw new RunnerError(
      'INVALID_INPUT',
      `${what} ${dir} cannot be written: its claim file ${OUTPUT_CLAIM_FILE} could not be saved (${code}: ${(error as Error).message}). Nothing was created or paid.`,
      { hint: 'Free space on that disk or choose another --output, then run again.', cause: error },
    );
  }
}

async function writeClaim(dir: string, owner: OutputOwner, what: string): Promise<string | undefined> {
  const file = join(dir, OUTPUT_CLAIM_FILE);
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  await removeDeadWritersTemporaries(file);
  const text = outputClaimText(owner);
  for (let tries = 0; tries < 3; tries++) {
    const decision = await decide(dir, owner);
    if (decision.verdict === 'refuse') throw refusal(dir, decision.reason, what);
    if (decision.verdict === 'mine') return undefined;
    // The claim is written whole beside the folder's claim file first, then put in place in one step:
    // a run killed while writing leaves at most a temporary file, never a claim cut short that would
    // refuse every later run (this one's resume too).
    if (!decision.existed) {
      // No claim was there: only an exclusive step may place one (another run may be placing its own).
      const placed = await placeFileWhole(file, text);
      if (placed === undefined) continue;
      await placed.close();
    } else {
      // A claim this run may take over (its own run id whose state is gone, a simulated run's).
      await replaceFileWhole(file, text);
    }
    return decision.warning;
  }
  throw refusal(dir, 'other runs keep claiming it at the same time', what);
}

/**
 * How long an empty claim file counts as being written. Claims are placed whole (see
 * {@link writeClaim}); an empty one is left by a run killed mid-write on a file system without hard
 * links, or by an earlier release, which wrote the text within milliseconds of creating the file.
 */
const EMPTY_CLAIM_GRACE_MS = 2_000;

async function decide(dir: string, owner: OutputOwner): Promise<ClaimVerdict & { existed: boolean }> {
  const existing = await readOutputClaim(dir);
  if (existing === 'unreadable' && (await isAbandonedEmptyClaim(dir))) {
    // The run that made it was killed before writing a word, so before its first create (a claim comes
    // first): it paid nothing into this folder.
    return {
      verdict: 'take-over',
      warning: `the output folder's ${OUTPUT_CLAIM_FILE} was empty, left by a run killed while claiming the folder (before it created anything); this run claims it.`,
      existed: true,
    };
  }
  if (existing === 'unreadable') {
    return {
      verdict: 'refuse',
      reason: `its ${OUTPUT_CLAIM_FILE} cannot be read as a run's claim (another run may be writing it now)`,
      existed: true,
    };
  }
  const stateExists =
    existing !== undefined && !sameState(existing, owner) && (await stateHoldsRun(existing));
  return { ...judgeOutputClaim(existing, owner, stateExists), existed: existing !== undefined };
}

async function isAbandonedEmptyClaim(dir: string): Promise<boolean> {
  try {
    const info = await stat(join(dir, OUTPUT_CLAIM_FILE));
    return info.size === 0 && Date.now() - info.mtimeMs > EMPTY_CLAIM_GRACE_MS;
  } catch {
    return false;
  }
}

/** Whether two claims name one state: one folder, or one database. */
function sameState(a: OutputOwner, b: OutputOwner): boolean {
  if (a.stateUrl !== undefined || b.stateUrl !== undefined) {
    // A claim of an earlier release holds the URL as given, not as shown.
    const shown = (url: string | undefined) => (url === undefined ? undefined : displayStateUrl(url));
    return shown(a.stateUrl) === shown(b.stateUrl);
  }
  return a.stateDir === b.stateDir;
}

/** The owner as a claim file records it: its database's URL as shown, never with a password (#31.12). */
function shownOwner(owner: OutputOwner): OutputOwner {
  return owner.stateUrl === undefined ? owner : { ...owner, stateUrl: displayStateUrl(owner.stateUrl) };
}

/** The claim in `dir`, undefined when there is none, `unreadable` when the file is not one. */
export async function readOutputClaim(dir: string): Promise<OutputOwner | 'unreadable' | undefined> {
  let text: string;
  try {
    text = await readFile(join(dir, OUTPUT_CLAIM_FILE), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
  return parseOutputClaim(text);
}

/** A claim's text (a folder's file, a bucket's object) as the run it names, `unreadable` when it is not one. */
export function parseOutputClaim(text: string): OutputOwner | 'unreadable' {
  try {
    const value = JSON.parse(text) as Partial<OutputOwner> | null;
    if (
      typeof value?.pipeline !== 'string' ||
      typeof value.runId !== 'string' ||
      typeof value.stateDir !== 'string' ||
      (value.stateUrl !== undefined && typeof value.stateUrl !== 'string')
    ) {
      return 'unreadable';
    }
    return {
      pipeline: value.pipeline,
      runId: value.runId,
      stateDir: value.stateDir,
      ...(value.stateUrl === undefined ? {} : { stateUrl: value.stateUrl }),
      ...(value.simulated === true ? { simulated: true } : {}),
    };
  } catch {
    return 'unreadable';
  }
}

/** The text a claim holds for `owner`: its database's URL as shown, never with a password (#31.12). */
export function outputClaimText(owner: OutputOwner): string {
  return `${JSON.stringify({ schemaVersion: 1, ...shownOwner(owner) }, null, 2)}\n`;
}

/**
 * {@link judgeOutputClaim} for a claim read elsewhere than a folder of this machine (a bucket's): whether
 * the claiming run's state still holds it is asked of that state.
 */
export async function judgeReadClaim(
  existing: OutputOwner | undefined,
  owner: OutputOwner,
  /** When this run first started (its first `run` record), if it has started before. */
  runStart?: number,
): Promise<ClaimVerdict> {
  const shown = shownOwner(owner);
  const stateExists =
    existing !== undefined && !sameState(existing, shown) && (await stateHoldsRun(existing));
  const verdict = judgeOutputClaim(existing, shown, stateExists);
  if (verdict.verdict !== 'refuse' || existing === undefined || runStart === undefined) return verdict;
  // A bucket is shared by machines: the state folder that claimed it may be a copy of this run's own
  // (a CI cache restored into another runner's workspace on the same host), not another run.
  const sameRun = existing.pipeline === owner.pipeline && existing.runId === owner.runId;
  if (!sameRun || (await claimedRunStart(existing)) !== runStart) return verdict;
  return {
    verdict: 'take-over',
    warning: `the output was claimed by run "${existing.runId}" with its state in ${existing.stateDir}, a copy of this run's state (the same history); this run's state (${shown.stateDir}) claims it.`,
  };
}

function refusal(dir: string, reason: string, what: string): RunnerError {
  return new RunnerError(
    'INVALID_INPUT',
    `${what} ${dir} cannot be used by this run: ${reason}. Each run writes its own folder, so that no run overwrites (or moves aside) another run's paid results. Nothing was created or paid.`,
    {
      hint: `Give this run a folder of its own (e.g. --output ${join(dir, '<run>')}), or leave --output out (the default is a folder per run). To let this run replace those files, delete ${join(dir, OUTPUT_CLAIM_FILE)} first.`,
    },
  );
}
