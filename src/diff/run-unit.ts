import type { CostDiff } from './cost-diff.js';

/** The words a schedule's label gives a run, as the comment's headline and a guardrail's unit say it. */
const RUN_WORDS: Readonly<Record<string, string>> = {
  nightly: 'night',
  daily: 'day',
  weekly: 'week',
  hourly: 'hour',
};

/** The schedule words a run may be called by (`--fail-on-increase 100/night`). */
export const SCHEDULE_RUN_WORDS = Object.values(RUN_WORDS);

/**
 * `run`, or `night` / `day` / `week` / `hour` when every manifest runs on that one schedule: the unit of
 * a per-run figure in the comment's headline and in the guardrails.
 */
export function runUnit(diff: Pick<CostDiff, 'manifests'>): string {
  const labels = new Set(diff.manifests.map((m) => m.schedule?.label.toLowerCase() ?? ''));
  const [only] = labels;
  if (labels.size !== 1 || only === undefined) return 'run';
  return RUN_WORDS[only] ?? 'run';
}
