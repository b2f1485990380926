import type { RunSummary } from '../../state/list-runs.js';
import type { Style } from '../output.js';

/** What locates the runs for the command a hint gives: the manifest and `--state-dir` as typed. */
export interface RunLocation {
  manifestFile: string;
  stateDir?: string | undefined;
}

/**
 * Warnings for runs that left paid work unfinished (issue 20 item 7): open jobs a crashed apply never
 * followed, results never saved. Each says what is at stake (the service deletes results 7 days after
 * a job completes) and gives the exact command that finishes it, with the options that find the run's
 * state and output folder. Empty when every run is finished.
 */
export function renderUnfinishedRuns(
  runs: readonly RunSummary[],
  where: RunLocation,
  style: Pick<Style, 'yellow'>,
): string[] {
  const lines: string[] = [];
  for (const run of runs) {
    const { open, undownloaded, ids } = run.unfinished;
    if (open + undownloaded === 0) continue;
    const parts = [
      ...(open === 0 ? [] : [`${open} paid job${open === 1 ? '' : 's'} still open`]),
      ...(undownloaded === 0
        ? []
        : [`${undownloaded} done job${undownloaded === 1 ? '' : 's'} with results not downloaded`]),
    ];
    const command = [
      'runner apply',
      quoteArg(where.manifestFile),
      '--run',
      quoteArg(run.runId),
      ...(where.stateDir === undefined ? [] : ['--state-dir', quoteArg(where.stateDir)]),
      ...(run.outputDir === undefined ? [] : ['--output', quoteArg(run.outputDir)]),
    ].join(' ');
    const whole = ids.length === open + undownloaded;
    const finish =
      open === 0
        ? `${command} --download-only (downloads them; it creates and pays nothing)`
        : whole
          ? `${command} ${ids.map((id) => `--only ${quoteArg(id)}`).join(' ')}` +
            ' (follows them to their end and downloads their results)'
          : `${command} (resumes that run: it also creates its jobs not started yet; add --only ID to keep to some)`;
    lines.push(
      `${style.yellow('warning')} run "${run.runId}" has ${parts.join(' and ')}, left by an apply that did not finish it; the service deletes results 7 days after a job completes. Finish it with: ${finish}`,
    );
  }
  return lines;
}

/** A word for a POSIX shell: as it is when it is safe, else in single quotes. */
export function quoteArg(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
