import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { RunnerError } from '../errors.js';
import type { JournalIdentity } from './journal.js';
import { JOURNAL_FILE } from './journal.js';
import type { ReplayResult } from './replay.js';
import { replayRunJournal } from './replay-run-journal.js';
import { resolveStateDir, resolveStateRoot, type RunAddress } from './state-dir.js';

/** Where one run's state lives, and what a reader should know about it. */
export interface RunStateLocation {
  /** The run's folder: `<root>/<pipeline>/<run>/`, or `<root>` for a journal of the old flat layout. */
  dir: string;
  /** `.runner/` beside the manifest, or `--state-dir`. */
  root: string;
  /** Set when the run's journal is of the old flat `--state-dir` layout. */
  warnings: string[];
}

/**
 * Finds a run's state folder: `<root>/<pipeline>/<run>/` for the default `.runner/` root and for
 * `--state-dir` alike, so one state folder holds every run of every pipeline apart (#7.1).
 *
 * Releases before this one wrote `--state-dir DIR`'s journal straight into DIR. Such a journal is
 * still used when it belongs to this run alone (so no job of it is paid for again), ignored when it
 * belongs to other runs, and refused when it mixes this run with others: its job records cannot be
 * told apart by run.
 */
export async function locateRunState(input: RunAddress): Promise<RunStateLocation> {
  const root = resolveStateRoot(input);
  const dir = resolveStateDir(input);
  const flatJournal = join(root, JOURNAL_FILE);
  if (input.stateDir === undefined || !existsSync(flatJournal)) return { dir, root, warnings: [] };
  const owners = listJournalOwners((await replayRunJournal(flatJournal)).replay);
  const mine = owners.filter((owner) => isIdentity(owner, input));
  if (owners.length === 0 || mine.length === owners.length) {
    return {
      dir: root,
      root,
      warnings: [
        `${flatJournal} has the layout of earlier releases (one run per --state-dir); it is used for run "${input.runId}". Runs of other ids go to ${join(root, '<pipeline>', '<run>')}/.`,
      ],
    };
  }
  if (mine.length === 0) return { dir, root, warnings: [] };
  throw new RunnerError(
    'STATE_MISMATCH',
    `${flatJournal} (the layout of earlier releases) holds several runs in one journal: ${owners.map(describeIdentity).join(', ')}. Its jobs cannot be told apart by run, so it is not used for ${describeIdentity(input)}. Nothing was created.`,
    {
      hint: `Check what it holds with \`runner status\` of an older release, then move it aside (mv ${flatJournal} ${flatJournal}.old): runs then start afresh under ${join(root, '<pipeline>', '<run>')}/, and jobs it created would be created again.`,
    },
  );
}

/**
 * Throws STATE_MISMATCH unless a replayed journal belongs to `identity`: its header (format 2), or
 * for a headerless journal of the first release its `run` records, must name this pipeline and run.
 */
export function checkJournalIdentity(
  replay: ReplayResult,
  identity: JournalIdentity,
  journalPath: string,
): void {
  const others = listJournalOwners(replay).filter((owner) => !isIdentity(owner, identity));
  if (others.length === 0) return;
  throw new RunnerError(
    'STATE_MISMATCH',
    `${journalPath} belongs to ${others.map(describeIdentity).join(', ')}, not to ${describeIdentity(identity)}. Nothing was created.`,
    {
      hint: 'Two pipeline names or run ids reduce to the same folder name, or the folder was copied: use another --run id, or move the folder away.',
    },
  );
}

/** The distinct pipeline/run pairs a journal names (its header, else its `run` records). */
export function listJournalOwners(replay: ReplayResult): JournalIdentity[] {
  const named =
    replay.header === undefined
      ? replay.runs.map((run) => ({ pipeline: run.pipeline, runId: run.runId }))
      : [replay.header];
  const owners = new Map<string, JournalIdentity>();
  for (const owner of named) owners.set(JSON.stringify([owner.pipeline, owner.runId]), owner);
  return [...owners.values()];
}

function isIdentity(a: JournalIdentity, b: JournalIdentity): boolean {
  return a.pipeline === b.pipeline && a.runId === b.runId;
}

function describeIdentity(identity: JournalIdentity): string {
  return `pipeline "${identity.pipeline}" run "${identity.runId}"`;
}
