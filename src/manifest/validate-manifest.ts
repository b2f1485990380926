import { expandJobs, type ExpandContext } from './expand-jobs.js';
import { loadManifest, type LoadManifestOptions } from './load-manifest.js';
import { sortIssues } from './sort-issues.js';
import type { ExpandedJob, LoadedManifest, ValidationIssue } from './types.js';

/** Stage-one inputs: what expansion needs, plus an optional in-memory source. */
export interface OfflineValidationContext extends Omit<ExpandContext, 'date'>, LoadManifestOptions {
  /**
   * The run date for `{{ date }}`, YYYY-MM-DD, or how to find it from the pipeline's name once the
   * manifest is read (apply: the date its run started).
   */
  date: string | ((pipeline: string) => Promise<string>);
}

/** `jobs` is empty unless the manifest loaded; any error in `issues` means it must not run. */
export interface OfflineValidationResult {
  loaded?: LoadedManifest;
  jobs: ExpandedJob[];
  issues: ValidationIssue[];
  /** The date rendered into `{{ date }}`, once the manifest loaded. */
  date?: string;
}

/**
 * Stage one of validation, needing no network: reads and parses the manifest, checks it against the
 * pipeline schema, expands matrices and templates and checks the job ids. Returns every issue, sorted
 * by location. Stage two (the model catalog) takes `jobs` from here.
 */
export async function validateManifestOffline(
  file: string,
  context: OfflineValidationContext,
): Promise<OfflineValidationResult> {
  const { loaded, issues } = await loadManifest(file, {
    ...(context.source === undefined ? {} : { source: context.source }),
    ...(context.checkJobsDespiteErrors === true ? { checkJobsDespiteErrors: true } : {}),
  });
  if (!loaded) return { jobs: [], issues: sortIssues(issues) };
  const date = typeof context.date === 'string' ? context.date : await context.date(loaded.manifest.name);
  const expanded = expandJobs(loaded, { ...context, date });
  return { loaded, jobs: expanded.jobs, issues: sortIssues([...issues, ...expanded.issues]), date };
}
