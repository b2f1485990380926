/**
 * What machines applying one run together must agree on besides its jobs (issue #31.8): the cap, the
 * jobs to replace, and whether failed and uncertain jobs are sent again. A leg without the cap joining
 * a capped run would spend without counting; one with `--resend-uncertain` would pay again for what
 * the others leave alone.
 */
export interface PlanSettings {
  /** The cap that applies: the lower of `--max-credits` and the manifest's `budget`. */
  maxCredits: number | undefined;
  /** `--replace` (and `--replace-from`) job ids. */
  replace: readonly string[];
  retryFailed: boolean;
  resendUncertain: boolean;
}

/** The identity a machine records when it joins: its jobs' hash and its settings, as JSON. */
export function formatPlanIdentity(jobs: string, settings: PlanSettings): string {
  return JSON.stringify({
    jobs,
    maxCredits: settings.maxCredits ?? null,
    replace: [...settings.replace].sort(),
    retryFailed: settings.retryFailed,
    resendUncertain: settings.resendUncertain,
  });
}

const FLAGS: readonly [keyof PlanSettings, string][] = [
  ['maxCredits', '--max-credits / the manifest budget'],
  ['replace', '--replace'],
  ['retryFailed', '--retry-failed'],
  ['resendUncertain', '--resend-uncertain'],
];

/**
 * The flags on which two identities differ, each with both values (`--max-credits / the manifest
 * budget (this apply: 50, the other: none)`), or `undefined` when their jobs differ (or one was
 * recorded by an older runner): another manifest, vars, targeting or catalog.
 */
export function describePlanDifference(mine: string, theirs: string): string | undefined {
  const a = parse(mine);
  const b = parse(theirs);
  if (a === undefined || b === undefined || a['jobs'] !== b['jobs']) return undefined;
  const differences = FLAGS.filter(([field]) => JSON.stringify(a[field]) !== JSON.stringify(b[field])).map(
    ([field, flag]) => `${flag} (this apply: ${show(a[field])}, the other: ${show(b[field])})`,
  );
  return differences.length === 0 ? undefined : differences.join('; ');
}

function parse(identity: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(identity);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function show(value: unknown): string {
  if (value === null || value === false) return 'none';
  if (value === true) return 'given';
  if (Array.isArray(value))
    return value.length === 0 ? 'none' : value.map((one) => JSON.stringify(one)).join(', ');
  return JSON.stringify(value);
}
