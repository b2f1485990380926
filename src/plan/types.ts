import type { ValidationIssue } from '../manifest/types.js';
import type { PlannedJob } from '../manifest/planned-job.js';
import type { PlanSchedule } from './cost-report.js';

/** The pure result of validating a manifest against the catalog. */
export interface Plan {
  pipeline: string;
  manifestFile: string;
  jobs: PlannedJob[];
  /** Warnings only; a plan is built only when there are no errors. */
  warnings: ValidationIssue[];
  budget?: number;
  /** The manifest's `schedule`, read (see `readSchedule`). */
  schedule?: PlanSchedule;
}
