import { open, stat } from 'node:fs/promises';
import { RunnerError } from '../errors.js';
import { syncDirectory } from './journal.js';
import { acquireLock } from './lock.js';
import { locateRunState } from './locate-run-state.js';
import { openRunState } from './open-run-state.js';
import { readJournalLines } from './read-journal.js';
import { readRunState } from './read-run-state.js';
import { ensureStateDir, journalPathFor, type RunAddress } from './state-dir.js';

/** A run's address in the folder (`--state-dir` or `.runner/`) and the database it moves to or from. */
export type MoveAddress = Omit<RunAddress, 'stateUrl'> & { stateUrl: string };

/**
 * `runner state push`: copies a run's journal from its folder into the database, record for record
 * and in order, under the folder's lock and the database lease (no apply writes to either meanwhile).
 * The folder is left as it was. Returns how many records were copied.
 */
export async function pushRunState(where: MoveAddress): Promise<number> {
  const { stateUrl, ...folder } = where;
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
    const records: string[] = [];
    for await (const line of readJournalLines(state.journal.path)) {
      if (line.text === undefined || line.text.trim() === '') continue;
      records.push(line.text);
    }
    const { importRunRecords } = await import('./backends/postgres/run-records.js');
    await importRunRecords(stateUrl, where, records);
    return records.length;
  } finally {
    await state.close();
  }
}

/**
 * `runner state pull`: writes a run's records from the database into a new journal in its folder
 * (fsynced), under both locks. Refuses a folder that already has a journal for the run. Returns how
 * many records were written.
 */
export async function pullRunState(where: MoveAddress): Promise<number> {
  const { stateUrl, ...folder } = where;
  const { dir } = await locateRunState(folder);
  const path = journalPathFor(dir);
  const size = await stat(path).then(
    (info) => info.size,
    () => 0,
  );
  if (size > 0) {
    throw new RunnerError(
      'STATE_MISMATCH',
      `${path} already holds a journal: pulling run "${where.runId}" into it would mix two histories. Nothing was written.`,
      { hint: `Move ${dir} away first, or pull into another --state-dir.` },
    );
  }
  await ensureStateDir(dir);
  const lock = await acquireLock(dir);
  try {
    const { exportRunRecords } = await import('./backends/postgres/run-records.js');
    const records = await exportRunRecords(stateUrl, where);
    if (records.length === 0) {
      throw new RunnerError(
        'STATE_NOT_FOUND',
        `Run "${where.runId}" of pipeline "${where.pipeline}" has no records in the database: nothing to pull.`,
      );
    }
    const handle = await open(path, 'w', 0o600);
    try {
      await handle.writeFile(`${records.join('\n')}\n`, 'utf8');
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await syncDirectory(dir);
    return records.length;
  } finally {
    await lock.release();
  }
}
