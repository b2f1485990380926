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

/** How {@link expandManifestArgs} reads the disk, and whether nothing may match. */
export interface ExpandManifestOptions {
  /** The names in a folder (a folder that does not exist reads as empty). */
  readdir: (dir: string) => Promise<string[]>;
  /** Whether a named manifest exists; asked only with `allowEmpty`. */
  exists: (file: string) => Promise<boolean>;
  /**
   * `plan --allow-empty`: a glob that matches nothing, or a named manifest that does not exist, is a
   * side with no manifests (the base of the pull request that adds the first ones), not an error.
   */
  allowEmpty: boolean;
}

/** What the manifest arguments name: the files found, and the arguments that named none (`allowEmpty`). */
export interface ExpandedManifestArgs {
  files: string[];
  unmatched: string[];
}

/**
 * The manifest arguments with globs expanded: `*` and `?` in the last path part (a shell expands an
 * unquoted glob itself; a quoted one, as CI files write it, is expanded here), matches sorted by
 * name, each file once. A glob that matches nothing is an `INVALID_INPUT` error naming it (a typo
 * helps no one as an empty report), unless `allowEmpty`.
 */
export async function expandManifestArgs(
  args: readonly string[],
  { readdir, exists, allowEmpty }: ExpandManifestOptions,
): Promise<ExpandedManifestArgs> {
  const files: string[] = [];
  const unmatched: string[] = [];
  for (const arg of args) {
    if (!/[*?]/.test(arg)) {
      if (allowEmpty && !(await exists(arg))) unmatched.push(arg);
      else files.push(arg);
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
      if (allowEmpty) {
        unmatched.push(arg);
        continue;
      }
      throw new RunnerError('INVALID_INPUT', `${arg}: no manifest matches this glob`, {
        hint: 'check the folder and the pattern; for the base of a pull request that adds the first manifests, `--allow-empty` plans it as a side with none',
      });
    }
    files.push(...names.map((name) => (dir === '.' && !arg.startsWith('./') ? name : join(dir, name))));
  }
  return { files: [...new Set(files)], unmatched };
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
