/**
 * Whether a run is finished, as apply and status both judge it (#33.11): `finished` when every job is
 * done with its results saved, `results-unsaved` when every job is done (paid) but some results are not
 * saved (here), `unfinished` when any job failed, is deferred, uncertain, running or not yet sent.
 * apply's exit reason and status's outcome are read off it, so the two agree on one run's exit code.
 */
export type RunVerdict = 'finished' | 'results-unsaved' | 'unfinished';

/**
 * @param counts `jobs`: the jobs judged; `done`: those done with every result saved; `downloading`:
 *   those done (paid) with results not saved.
 */
export function judgeRun(counts: { jobs: number; done: number; downloading: number }): RunVerdict {
  if (counts.done === counts.jobs) return 'finished';
  return counts.done + counts.downloading === counts.jobs ? 'results-unsaved' : 'unfinished';
}
