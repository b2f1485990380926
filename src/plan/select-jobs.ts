import type { ValidationIssue } from '../manifest/types.js';
import { didYouMean } from '../suggest.js';

/** `--only`, `--exclude` and `--replace` of validate/plan/apply/status. */
export interface Targeting {
  /** Globs; when any is given, only jobs matching one of them are kept. */
  only: readonly string[];
  /** Globs; matching jobs are left out (after `only`). */
  exclude: readonly string[];
  /** Exact ids of done jobs to run again as a new attempt (apply). */
  replace: readonly string[];
}

/** No targeting: every job, nothing replaced. */
export const NO_TARGETING: Targeting = { only: [], exclude: [], replace: [] };

/** What a selection kept and left out, in plan order. */
export interface Selection<T> {
  selected: T[];
  /** Ids of the jobs left out by `--only` / `--exclude`. */
  leftOut: string[];
  /** One sentence per pattern or id that matched no job (`--only` typos select nothing; `--exclude` typos run jobs). */
  problems: string[];
}

/** Whether targeting restricts anything. */
export function isTargeted(targeting: Targeting): boolean {
  return targeting.only.length > 0 || targeting.exclude.length > 0 || targeting.replace.length > 0;
}

/**
 * A job id glob as a RegExp: `*` matches any run of characters (ids hold no `/`, so `**` is the same),
 * `?` one character, everything else itself. Anchored: `hero-*` does not match `x-hero-1`.
 *
 * @example globToRegExp('hero-*-watercolor').test('hero-latte-watercolor') // true
 */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  for (const char of glob) {
    if (char === '*') source += source.endsWith('.*') ? '' : '.*';
    else if (char === '?') source += '.';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 'su');
}

/**
 * Keeps the jobs whose id matches an `only` glob (all when none is given) and no `exclude` glob. Every
 * pattern that matches no job at all, and every `replace` id that is not among the selected jobs, is a
 * problem: the caller refuses to go on, since a mistyped `--exclude` would run (and pay for) jobs
 * meant to be left out. Pure.
 */
export function selectJobs<T extends { id: string }>(jobs: readonly T[], targeting: Targeting): Selection<T> {
  const selector = createJobSelector(targeting);
  const selected: T[] = [];
  for (const job of jobs) if (selector.keep(job.id)) selected.push(job);
  const ids = jobs.map((job) => job.id);
  return { selected, ...selector.finish({ ids, has: (id) => ids.includes(id) }) };
}

/** {@link selectJobs} one id at a time, for jobs that are not kept in a list. */
export interface JobSelector {
  /** Whether the job is selected; a job left out is remembered for `leftOut`. */
  keep(id: string): boolean;
  /** What was left out and the problems, once every job has been seen. */
  finish(all: { ids: Iterable<string>; has: (id: string) => boolean }): Omit<Selection<never>, 'selected'>;
}

/** A {@link JobSelector} for the targeting flags. */
export function createJobSelector(targeting: Targeting): JobSelector {
  const only = targeting.only.map((glob) => ({ glob, re: globToRegExp(glob), used: false }));
  const exclude = targeting.exclude.map((glob) => ({ glob, re: globToRegExp(glob), used: false }));
  const leftOut: string[] = [];
  const replace = new Set(targeting.replace);
  const replaceSelected = new Set<string>();
  return {
    keep(id) {
      let kept = only.length === 0;
      for (const pattern of only) {
        if (pattern.re.test(id)) {
          pattern.used = true;
          kept = true;
        }
      }
      for (const pattern of exclude) {
        if (pattern.re.test(id)) {
          pattern.used = true;
          kept = false;
        }
      }
      if (!kept) leftOut.push(id);
      else if (replace.has(id)) replaceSelected.add(id);
      return kept;
    },
    finish({ ids, has }) {
      const problems: string[] = [];
      const unmatched = (flag: string, glob: string): string => {
        const hint = glob.includes('*') || glob.includes('?') ? undefined : didYouMean(glob, ids);
        return `${flag} ${JSON.stringify(glob)} matches no job of the manifest${hint === undefined ? '' : `; ${hint}`}`;
      };
      for (const pattern of only) if (!pattern.used) problems.push(unmatched('--only', pattern.glob));
      for (const pattern of exclude) if (!pattern.used) problems.push(unmatched('--exclude', pattern.glob));
      for (const id of targeting.replace) {
        if (replaceSelected.has(id)) continue;
        problems.push(
          has(id)
            ? `--replace ${JSON.stringify(id)} names a job that --only/--exclude leave out`
            : `--replace ${JSON.stringify(id)} names no job of the manifest${prefix(didYouMean(id, ids))}`,
        );
      }
      return { leftOut, problems };
    },
  };
}

function prefix(hint: string | undefined): string {
  return hint === undefined ? '' : `; ${hint}`;
}

/** Targeting problems as validation errors (`unmatched-target`). */
export function describeTargetProblems(problems: readonly string[]): ValidationIssue[] {
  return problems.map((message) => ({
    severity: 'error',
    code: 'unmatched-target',
    message,
    hint: 'job ids are the expanded ids; `runner plan FILE --format json` lists them',
  }));
}
