import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { RunnerError } from '../../../errors.js';
import { describeIdentity, isIdentity, listJournalOwners } from '../../journal-identity.js';
import { JOURNAL_FILE } from './journal.js';
import type { RunStateLocation } from '../../run-reading.js';
import { replayRunJournal } from './replay-run-journal.js';
import { resolveStateDir, resolveStateRoot, type RunAddress } from '../../state-dir.js';

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

/** Creates the directory (and parents) with mode 0700. */
export async function ensureStateDir(stateDir: string): Promise<void> {
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
}
