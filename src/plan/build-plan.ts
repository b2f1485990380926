import { RunnerError } from '../errors.js';
import type { LoadedManifest, ValidationIssue } from '../manifest/types.js';
import type { Plan } from './types.js';
import type { PlannedJob } from '../manifest/planned-job.js';
import { readSchedule } from './schedule.js';

/**
 * Assembles the {@link Plan} from the validated jobs. Pure. A plan is only built from a manifest
 * without errors: passing an error-severity issue is a caller bug and throws `INTERNAL`.
 */
export function buildPlan(args: {
  loaded: Pick<LoadedManifest, 'file' | 'manifest'>;
  planned: PlannedJob[];
  warnings: readonly ValidationIssue[];
}): Plan {
  const errors = args.warnings.filter((issue) => issue.severity === 'error');
  if (errors.length > 0) {
    throw new RunnerError(
      'INTERNAL',
      `buildPlan was given ${errors.length} error(s) (first: ${errors[0]?.code}); a plan is only built from a valid manifest`,
    );
  }
  const plan: Plan = {
    pipeline: args.loaded.manifest.name,
    manifestFile: args.loaded.file,
    jobs: args.planned,
    warnings: [...args.warnings],
  };
  if (args.loaded.manifest.budget !== undefined) plan.budget = args.loaded.manifest.budget;
  if (args.loaded.manifest.schedule !== undefined)
    plan.schedule = readSchedule(args.loaded.manifest.schedule);
  return plan;
}
