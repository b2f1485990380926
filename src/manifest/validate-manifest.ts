import { expandJobs, type ExpandContext } from './expand-jobs.js';
import { loadManifest, type LoadManifestOptions } from './load-manifest.js';
import { sortIssues } from './sort-issues.js';
import type { ExpandedJob, LoadedManifest, ValidationIssue } from './types.js';

/** Stage-one inputs: what expansion needs, plus an optional in-memory source. */
export interface OfflineValidationContext extends ExpandContext, LoadManifestOptions {}

/** `jobs` is empty unless the manifest loaded; any error in `issues` means it must not run. */
export interface OfflineValidationResult {
  loaded?: LoadedManifest;
  jobs: ExpandedJob[];
  issues: ValidationIssue[];
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
  const expanded = expandJobs(loaded, context);
  return { loaded, jobs: expanded.jobs, issues: sortIssues([...issues, ...expanded.issues]) };
}
