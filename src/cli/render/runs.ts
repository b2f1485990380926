import { formatCredits } from '../../plan/credits.js';
import { formatTable } from '../../plan/text-table.js';
import type { RunsView } from '../../state/index.js';
import type { Style } from '../../text-style.js';
import { SIMULATED_STATE_NOTE } from '../../app/simulated-state-note.js';
import { readableUtcTime } from '../../readable-time.js';

const STATUS_ORDER = ['done', 'open', 'creating', 'pending', 'failed', 'deferred', 'uncertain'] as const;

/** `runner runs` as a table, oldest run first. */
export function renderRuns(view: RunsView, style: Style, width = 120): string {
  if (view.runs.length === 0) {
    return `No runs of pipeline "${view.pipeline}" have state in ${view.stateRoot}. ${SIMULATED_STATE_NOTE}`;
  }
  const rows = view.runs.map((run) => [
    run.runId,
    run.startedAt === undefined ? '' : readableUtcTime(run.startedAt),
    String(run.applies),
    String(run.counts.jobs),
    STATUS_ORDER.filter((status) => run.counts[status] > 0)
      .map((status) => `${status} ${run.counts[status]}`)
      .join(', '),
    formatCredits(run.creditsSpent),
  ]);
  const [header = '', ...lines] = formatTable(
    ['Run', 'Started', 'Applies', 'Jobs', 'Counts', 'Credits'],
    rows,
    { align: ['left', 'left', 'right', 'right', 'left', 'right'], maxWidth: width },
  );
  const total = view.runs.reduce((sum, run) => sum + run.creditsSpent, 0);
  return [
    style.bold(header),
    ...lines,
    '',
    `${view.runs.length} run${view.runs.length === 1 ? '' : 's'} of pipeline "${view.pipeline}" in ${view.stateRoot}. Credits spent: ${formatCredits(total)}.`,
  ].join('\n');
}
