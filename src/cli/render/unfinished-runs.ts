import type { RunSummary } from '../../state/index.js';
import type { GlobalOptions } from '../../app/context.js';
import type { Style } from '../../text-style.js';
import { rerunCommand, type RepeatedFlags } from '../../app/rerun-command.js';

/**
 * What the command a hint gives repeats: the manifest, the options of the command that warns (its
 * `--state-dir` and, for apply, its vars: the run's jobs are rendered with them) and how it reached
 * the service.
 */
export interface RunLocation {
  manifestFile: string;
  options: RepeatedFlags;
  global: Pick<GlobalOptions, 'simulate' | 'baseUrl' | 'apiKeyFile'>;
}

/**
 * Warnings for runs that left paid work unfinished (issue 20 item 7): open jobs a crashed apply never
 * followed, results never saved. Each says what is at stake (the service deletes results 7 days after
 * a job completes) and gives the exact command that finishes it, with the options that find the run's
 * state and output folder: `--download-only` when only results are owed; else `--only` each open job
 * with `--max-credits 0`, so that following it follows those jobs and pays for nothing new (a job the
 * manifest changed since would be refused, exit 3, before any create); a run that left more jobs than
 * a hint lists is resumed whole. Empty when every run is finished.
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
    const options: RepeatedFlags = {
      var: where.options.var,
      varFile: where.options.varFile,
      stateDir: where.options.stateDir,
      state: where.options.state,
      run: run.runId,
      ...(run.outputDir === undefined ? {} : { output: run.outputDir }),
    };
    const command = (extra: RepeatedFlags, flags: string[] = []) =>
      rerunCommand('apply', where.manifestFile, { ...options, ...extra }, where.global, flags);
    const finish =
      open === 0
        ? `${command({}, ['--download-only'])} (downloads them; it creates and pays nothing)`
        : ids.length === open + undownloaded
          ? `${command({ only: ids, maxCredits: '0' })} (follows them to their end and downloads their results; --max-credits 0: nothing new is paid)`
          : `${command({})} (resumes that run: it also creates its jobs not started yet; add --only ID to keep to some)`;
    lines.push(
      `${style.yellow('warning')} run "${run.runId}" has ${parts.join(' and ')}, left by an apply that did not finish it; the service deletes results 7 days after a job completes. Finish it with: ${finish}`,
    );
  }
  return lines;
}
