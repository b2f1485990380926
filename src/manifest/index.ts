export {
  loadManifest,
  MAX_MANIFEST_BYTES,
  type LoadManifestOptions,
  type LoadManifestResult,
} from './load-manifest.js';
export { validateManifestSchema, PIPELINE_SCHEMA_URL } from './validate-schema.js';
export { expandJobs, MAX_PROMPT_LENGTH, type ExpandContext, type ExpandJobsResult } from './expand-jobs.js';
export { DEFAULT_JOB_KIND } from './compile-spec.js';
export { DEFAULT_MAX_JOBS } from './check-job-count.js';
export {
  expandMatrix,
  countMatrixProduct,
  countMatrixUpperBound,
  type MatrixCombination,
} from './expand-matrix.js';
export { compileTemplate, renderTemplate, type CompiledTemplate } from './template.js';
export {
  validateManifestOffline,
  type OfflineValidationContext,
  type OfflineValidationResult,
} from './validate-manifest.js';
export { formatIssue, formatLocation } from './format-issue.js';
export { sortIssues } from './sort-issues.js';
export { formatYamlPath } from './yaml-path.js';
export { suggestClosest, didYouMean } from '../suggest.js';
export type * from './types.js';
