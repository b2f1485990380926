import { basename, dirname, join } from 'node:path';
import { RunnerError } from '../errors.js';
import type { ValidationIssue } from '../manifest/types.js';
import type { CostReportView } from '../plan/job-table.js';
import { globToRegExp } from '../plan/select-jobs.js';

/** One manifest planned: its report, or the issues that made it invalid. */
export type PlannedManifest =
  { file: string; ok: true; report: CostReportView } | { file: string; ok: false; issues: ValidationIssue[] };

/**
 * `runner plan a.yaml b.yaml` (or `'pipelines/*.yaml'`): every manifest planned in turn by `planOne`
 * (the single-manifest plan, passed in), in the order given. Each report is kept, so the caller can
 * write them as one plan set and sum them.
 */
export async function planManifests(
  files: readonly string[],
  planOne: (file: string) => Promise<PlannedManifest>,
): Promise<PlannedManifest[]> {
  const planned: PlannedManifest[] = [];
  for (const file of files) planned.push(await planOne(file));
  return planned;
}

/**
 * The manifest arguments with globs expanded: `*` and `?` in the last path part (a shell expands an
 * unquoted glob itself; a quoted one, as CI files write it, is expanded here), matches sorted by
 * name, each file once. A glob that matches nothing is an `INVALID_INPUT` error naming it.
 */
export async function expandManifestArgs(
  args: readonly string[],
  readdir: (dir: string) => Promise<string[]>,
): Promise<string[]> {
  const files: string[] = [];
  for (const arg of args) {
    if (!/[*?]/.test(arg)) {
      files.push(arg);
      continue;
    }
    const dir = dirname(arg);
    if (/[*?]/.test(dir)) {
      throw new RunnerError(
        'INVALID_INPUT',
        `${arg}: a glob may use * and ? in the file name only, not in its folders`,
      );
    }
    const pattern = globToRegExp(basename(arg));
    const names = (await readdir(dir).catch(() => [] as string[]))
      .filter((name) => pattern.test(name))
      .sort();
    if (names.length === 0) {
      throw new RunnerError('INVALID_INPUT', `${arg}: no manifest matches this glob`);
    }
    files.push(...names.map((name) => (dir === '.' && !arg.startsWith('./') ? name : join(dir, name))));
  }
  return [...new Set(files)];
}

/** The sum of several plans: credits per run, and per month over the manifests with a schedule. */
export function sumPlans(reports: readonly CostReportView[]): {
  credits: number;
  creditsPerMonth: number | null;
} {
  let credits = 0;
  let perMonth: number | null = null;
  for (const report of reports) {
    credits += report.credits.total;
    if (report.creditsPerMonth !== undefined) perMonth = (perMonth ?? 0) + report.creditsPerMonth;
  }
  return {
    credits: Math.round(credits * 1e6) / 1e6,
    creditsPerMonth: perMonth === null ? null : Math.round(perMonth * 1e6) / 1e6,
  };
}
