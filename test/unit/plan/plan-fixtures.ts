import type { JobKind } from '../../../src/kinds/types.js';
import type { Plan } from '../../../src/plan/types.js';
import type { PlannedJob } from '../../../src/manifest/planned-job.js';

/** A planned job literal; `credits` is its estimate, `hash` its payload hash. */
export function plannedJob(
  id: string,
  options: {
    model?: string;
    kind?: JobKind;
    credits?: number;
    hash?: string;
    matrixValues?: Record<string, string | number | boolean>;
  } = {},
): PlannedJob {
  return {
    id,
    kind: options.kind ?? 'image',
    model: options.model ?? 'chatgpt-image-sangtao',
    prompt: `prompt for ${id}`,
    params: {},
    estimatedCredits: options.credits ?? 2,
    payloadHash: options.hash ?? `hash-${id}`,
    source: {
      matrixValues: options.matrixValues ?? {},
      specIndex: 0,
      origins: { job: ['jobs', 0], model: ['jobs', 0, 'model'], params: {} },
    },
  };
}

export function makePlan(jobs: PlannedJob[], budget?: number): Plan {
  const plan: Plan = { pipeline: 'coffee-ads', manifestFile: 'pipelines/coffee.yaml', jobs, warnings: [] };
  if (budget !== undefined) plan.budget = budget;
  return plan;
}
