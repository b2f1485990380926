import { dirname } from 'node:path';
import type { JobState } from './job-state.js';
import type { ReplayResult } from './replay.js';

/**
 * The output folder a run used, from its state: the latest apply's recorded `outputDir`; for a run of
 * an earlier release (no folder recorded), the folder of a file it downloaded; else undefined.
 * `runner status`, `runner report` and a resumed apply read it, so a run's results are looked for (and
 * added to) where the run put them, whatever `--output` says today.
 */
/**
 * The machine (`hostOf`) that recorded the run's latest output folder, when it said (runs of earlier
 * releases did not).
 */
export function recordedOutputHost(runs: ReplayResult['runs']): string | undefined {
  for (let index = runs.length - 1; index >= 0; index--) {
    const run = runs[index];
    if (typeof run?.outputDir === 'string' && run.outputDir !== '') return run.host;
  }
  return undefined;
}

export function recordedOutputDir(
  runs: ReplayResult['runs'],
  jobs?: ReadonlyMap<string, JobState>,
): string | undefined {
  for (let index = runs.length - 1; index >= 0; index--) {
    const outputDir = runs[index]?.outputDir;
    if (typeof outputDir === 'string' && outputDir !== '') return outputDir;
  }
  for (const job of jobs?.values() ?? []) {
    // `downloads` is read only for jobs the replay holds whole; a stored job's summary names its files.
    const file = job.storedSummary?.()?.files[0] ?? job.downloads[0]?.file;
    if (file !== undefined) return dirname(file);
  }
  return undefined;
}
