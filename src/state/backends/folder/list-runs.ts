import { readdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ReplayResult } from '../../replay.js';
import {
  emptySummary,
  summarizeReplay,
  type ListRunsInput,
  type RunSummary,
  type RunsView,
} from '../../run-summary.js';
import { resolvePipelineDir, resolveStateRoot } from '../../state-dir.js';
import { JOURNAL_FILE } from './journal.js';
import { replayRunJournal } from './replay-run-journal.js';

/**
 * Every run of a pipeline with state under the state root (`<root>/<pipeline>/*`/), plus a journal
 * of the old flat `--state-dir` layout naming this pipeline. Read-only: no lock is taken.
 */
export async function listRuns(input: ListRunsInput & { exceptDir?: string }): Promise<RunsView> {
  const root = resolveStateRoot(input);
  const pipelineDir = resolvePipelineDir(input);
  const dirs: string[] = [];
  try {
    for (const entry of await readdir(pipelineDir, { withFileTypes: true })) {
      const dir = join(pipelineDir, entry.name);
      // No run's folder starts with a dot: one that does is a pruned run's, set aside (delete-run-folder.ts).
      if (entry.name.startsWith('.')) continue;
      if (entry.isDirectory() && dir !== input.exceptDir && existsSync(join(dir, JOURNAL_FILE)))
        dirs.push(dir);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (input.stateDir !== undefined && root !== input.exceptDir && existsSync(join(root, JOURNAL_FILE)))
    dirs.push(root);
  const runs: RunSummary[] = [];
  for (const dir of dirs) runs.push(...(await summarizeRunDir(dir, input)));
  runs.sort((a, b) => (a.startedAt ?? '').localeCompare(b.startedAt ?? '') || a.runId.localeCompare(b.runId));
  return { schemaVersion: 1, pipeline: input.pipeline, stateRoot: root, runs };
}

async function summarizeRunDir(dir: string, input: ListRunsInput): Promise<RunSummary[]> {
  let replay: ReplayResult;
  try {
    ({ replay } = await replayRunJournal(join(dir, JOURNAL_FILE)));
  } catch (error) {
    return [{ ...emptySummary(dir, dir.split(/[\\/]/).at(-1) ?? dir), warnings: [(error as Error).message] }];
  }
  return summarizeReplay(replay, dir, input.pipeline, input);
}
