import type { ExecutionSummary } from '../../execute/events.js';
import type { Style } from '../output.js';

/** The closing report of `runner apply`: counts, credits, where results are, and what to do next. */
export function renderApplySummary(
  summary: ExecutionSummary,
  context: {
    outputDir: string | undefined;
    stateDir: string;
    manifestFile: string;
    runId: string;
    /** With --simulate the state lives only as long as the in-process simulator. */
    temporaryState?: boolean;
    /**
     * The temporary state root of a simulated apply (its `--state-dir`): the commands that read a run
     * (status, runs, report) find it only when told, so the summary says how (#20.10).
     */
    temporaryStateRoot?: string;
  },
  style: Style,
): string {
  const { counts } = summary;
  const lines: string[] = [];
  const headline =
    summary.exitReason === 'ok'
      ? style.green(`✓ All ${counts.total} jobs done.`)
      : `${counts.done} of ${counts.total} jobs done.`;
  lines.push(headline);
  const rest: [string, number][] = [
    ['paid but results not saved', counts.downloading],
    ['failed', counts.failed],
    ['still running', counts['still-running']],
    ['pending', counts.pending],
    ['sent, answer lost', counts.creating],
    ['deferred', counts.deferred],
    ['uncertain', counts.uncertain],
    ['downloads failed', counts.downloadFailures],
  ];
  const nonZero = rest.filter(([, count]) => count > 0).map(([label, count]) => `${label} ${count}`);
  if (nonZero.length > 0) lines.push(nonZero.join(', '));
  lines.push(
    // A run is a run id, which may take several applies: say which figure is which.
    `Credits spent: ${summary.creditsSpent} by this apply, ${summary.creditsSpentTotal} in run ${context.runId} so far.`,
  );
  if (context.outputDir !== undefined && counts.done > 0) lines.push(`Results: ${context.outputDir}`);
  const stateNote = context.temporaryState === true ? ' (temporary: the in-process simulator is gone)' : '';
  lines.push(style.dim(`State: ${context.stateDir}${stateNote}`));
  const runFlag = context.runId === 'default' ? '' : ` --run ${context.runId}`;
  const stateFlag =
    context.temporaryStateRoot === undefined ? '' : ` --state-dir ${shellWord(context.temporaryStateRoot)}`;
  if (stateFlag !== '') {
    lines.push(
      style.dim(
        `See this run with \`runner status ${context.manifestFile}${runFlag}${stateFlag}\` (or \`runs\`, \`report\`, with the same --state-dir).`,
      ),
    );
  }
  const again = `runner apply ${context.manifestFile}${runFlag}`;
  const next: string[] = [];
  if (
    context.temporaryState !== true &&
    counts['still-running'] + counts.pending + counts.creating + counts.deferred > 0
  ) {
    next.push(`Run \`${again}\` again to continue: finished jobs are skipped and nothing is paid twice.`);
  }
  if (counts.downloading > 0) {
    next.push(
      `\`${again} --download-only\` fetches the results not saved (it creates and pays nothing); result links expire 7 days after a job completes.`,
    );
  }
  if (counts.uncertain > 0) {
    next.push(
      `Uncertain jobs may already exist and be paid for; \`${again} --resend-uncertain\` sends them again.`,
    );
  }
  if (counts.failed > 0) {
    next.push(
      `See \`runner status ${context.manifestFile}${runFlag}${stateFlag}\` for each failure and its advice.`,
    );
  }
  for (const line of next) lines.push(style.dim(line));
  return lines.join('\n');
}

/** `word` as one shell word: as is when it holds only characters no shell treats specially, else quoted. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}
