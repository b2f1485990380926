import type { ClientBase } from 'pg';
import { createJournalReplay, type ReplayCheckpoint, type ReplayResult } from '../../replay.js';
import type { RunKey } from './lease.js';

/** A run's records replayed from the database. */
export interface RecordsReading {
  replay: ReplayResult;
  /** The records read: the run's journal length. */
  lines: number;
  /** The replay apart from its jobs. */
  checkpoint: Omit<ReplayCheckpoint, 'jobs' | 'lines'>;
}

/**
 * Replays a run's records in the order they were appended, exactly as the folder backend replays its
 * journal's lines (the records are stored as the same JSON text), so both give the same state.
 */
export async function replayRunRecords(
  client: ClientBase,
  run: RunKey,
  source: string,
): Promise<RecordsReading> {
  const replay = createJournalReplay(source);
  const { rows } = await client.query<[string]>({
    text: 'SELECT record FROM runner_records WHERE pipeline = $1 AND run_id = $2 ORDER BY seq',
    values: [run.pipeline, run.runId],
    rowMode: 'array',
  });
  let number = 0;
  for (const [text] of rows) {
    number++;
    replay.add({ number, text, bytes: text.length, terminated: true });
  }
  const { jobs: _jobs, lines: _lines, ...checkpoint } = replay.checkpoint();
  return { replay: replay.finish(), lines: number, checkpoint };
}

/** When the run's first apply started: the `at` of its first `run` record, from its first few records. */
export async function readFirstRunAt(client: ClientBase, run: RunKey): Promise<number | undefined> {
  const { rows } = await client.query<[string]>({
    text: 'SELECT record FROM runner_records WHERE pipeline = $1 AND run_id = $2 ORDER BY seq LIMIT 4',
    values: [run.pipeline, run.runId],
    rowMode: 'array',
  });
  for (const [text] of rows) {
    let record: { type?: unknown; at?: unknown };
    try {
      record = JSON.parse(text) as typeof record;
    } catch {
      // A hint only: the replay under the lease reports a damaged record.
      return undefined;
    }
    if (record.type === 'run') return typeof record.at === 'number' ? record.at : undefined;
  }
  return undefined;
}
