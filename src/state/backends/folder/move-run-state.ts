import { open, stat } from 'node:fs/promises';
import { RunnerError } from '../../../errors.js';
import { syncDirectory } from './sync-directory.js';
import { acquireLock } from './lock.js';
import { locateRunState } from './locate-run-state.js';
import { readMovedMark, removeMovedMark, setAsidePushedCopy, writeMovedMark } from './moved-run.js';
import { openRunState } from './open-run-state.js';
import { readJournalLines } from './read-journal.js';
import { readRunState } from './read-run-state.js';
import { type RunAddress } from '../../state-dir.js';
import { ensureStateDir } from './locate-run-state.js';
import { journalPathFor } from './journal.js';
import { setAsideLateLines, unansweredCreates } from './late-records.js';
import type { JobState } from '../../job-state.js';
import { type UnansweredCreate, waitForLateAnswers } from '../../late-answer-window.js';
import type { LateAnswers } from '../../state-store.js';

/** A run's address in the folder (`--state-dir` or `.runner/`) and the database it moves to or from. */
export type MoveAddress = Omit<RunAddress, 'stateUrl'> & {
  stateUrl: string;
  /**
   * How long after a holder's lease ended the move still waits for a create's late answer
   * (`waitForLateAnswers`; tests shorten it). @default LATE_ANSWER_WINDOW_MS
   */
  lateAnswerWindowMs?: number;
  /** Hears what the move waits for before it copies the run (a create in flight, #31.9). */
  onWait?: (message: string) => void;
};

/**
 * `runner state push`: copies a run's journal from its folder into the database, record for record
 * and in order, under the folder's lock and the database lease (no apply writes to either meanwhile).
 * The folder is left as it was. Returns how many records the database holds for the run now (late
 * answers a pull left behind there included: `importRunRecords`).
 */
export async function pushRunState(where: MoveAddress): Promise<number> {
  const { stateUrl, lateAnswerWindowMs, onWait, ...folder } = where;
  const reading = await readRunState(folder);
  if (!reading.exists) {
    throw new RunnerError(
      'STATE_NOT_FOUND',
      `Run "${where.runId}" of pipeline "${where.pipeline}" has no state in ${reading.location.dir}: nothing to push.`,
    );
  }
  // Opening takes the lock, checks the journal belongs to this run and cuts a torn last line.
  const state = await openRunState(folder);
  try {
    const answers = state.lateAnswers;
    if (answers !== undefined) {
      // The lock was taken over from a runner that may be alive (stale: paused, cut off): a video
      // create it sent may still be answered into late.jsonl. Copied before then, the database would
      // call the job uncertain, and `--resend-uncertain` there would pay for it twice (#31.9).
      await waitForLateAnswers({
        look: () => lookForLateAnswers(answers, state.jobs),
        ...(lateAnswerWindowMs === undefined ? {} : { windowMs: lateAnswerWindowMs }),
        ...(onWait === undefined ? {} : { onWait }),
      });
    }
    const records: string[] = [];
    for await (const line of readJournalLines(state.journal.path)) {
      if (line.text === undefined || line.text.trim() === '') continue;
      records.push(line.text);
    }
    const { importRunRecords } = await import('../postgres/run-records.js');
    const { parseStateUrl } = await import('../../state-url.js');
    // Late answers waiting beside the journal were adopted into it when it was opened, so they go too.
    const stored = await importRunRecords(stateUrl, where, records);
    // Under the folder's lock still: from now on, applying the folder's copy is refused (#31.11).
    await writeMovedMark(state.dir, { to: parseStateUrl(stateUrl).display, at: new Date().toISOString() });
    return stored;
  } finally {
    await state.close();
  }
}

/**
 * The folder's creates in flight of the runner whose lock was taken over that are still unanswered;
 * an answer that came meanwhile is adopted into the journal (and `jobs`) on the way.
 */
async function lookForLateAnswers(
  answers: LateAnswers,
  jobs: Map<string, JobState>,
): Promise<UnansweredCreate[]> {
  const pending: UnansweredCreate[] = [];
  for (const id of unansweredCreates(jobs)) {
    const sender = await answers.unansweredCreate(id);
    const job = jobs.get(id);
    const attempt = job?.attempts.at(-1)?.attempt;
    if (sender === undefined || job === undefined || attempt === undefined) continue;
    const answered = await answers.lookForAnswer(id, job, attempt);
    if (answered !== undefined) jobs.set(id, answered);
    else pending.push({ id, ...sender });
  }
  return pending;
}

/**
 * `runner state pull`: writes a run's records from the database into a new journal in its folder
 * (fsynced), under both locks, then marks the database's copy moved (#31.11): applying it is refused
 * from then on. Refuses a folder that already has a journal for the run, unless it is the copy a push
 * left behind (marked moved): that copy is set aside and the run comes back. Returns how many records
 * were written.
 */
export async function pullRunState(where: MoveAddress): Promise<number> {
  const { stateUrl, lateAnswerWindowMs, onWait, ...folder } = where;
  const { dir, root } = await locateRunState(folder);
  const path = journalPathFor(dir);
  await ensureStateDir(dir);
  const lock = await acquireLock(dir);
  try {
    const moved = await readMovedMark(dir);
    const size = await stat(path).then(
      (info) => info.size,
      () => 0,
    );
    if (size > 0 && moved === undefined) {
      throw new RunnerError(
        'STATE_MISMATCH',
        `${path} already holds a journal: pulling run "${where.runId}" into it would mix two histories. Nothing was written.`,
        { hint: `Move ${dir} away first, or pull into another --state-dir.` },
      );
    }
    const { exportRunRecords } = await import('../postgres/run-records.js');
    const count = await exportRunRecords(stateUrl, where, {
      movedTo: root,
      ...(lateAnswerWindowMs === undefined ? {} : { lateAnswerWindowMs }),
      ...(onWait === undefined ? {} : { onWait }),
      write: async (records, setAside) => {
        if (moved !== undefined) await setAsidePushedCopy(dir, moved);
        const handle = await open(path, 'w', 0o600);
        try {
          await handle.writeFile(`${records.join('\n')}\n`, 'utf8');
          await handle.datasync();
        } finally {
          await handle.close();
        }
        await syncDirectory(dir);
        // Late records the database set aside (no longer fitting, warned of once): kept for a person.
        await setAsideLateLines(path, setAside);
        if (moved !== undefined) await removeMovedMark(dir);
      },
    });
    if (count === 0) {
      throw new RunnerError(
        'STATE_NOT_FOUND',
        `Run "${where.runId}" of pipeline "${where.pipeline}" has no records in the database: nothing to pull.`,
      );
    }
    return count;
  } finally {
    await lock.release();
  }
}
