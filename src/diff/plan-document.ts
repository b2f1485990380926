import { RunnerError } from '../errors.js';
import type { MatrixValue } from '../manifest/types.js';
import type { PlanCatalog, PlanSchedule } from '../plan/cost-report.js';
import type { CostReportView } from '../plan/job-table.js';
import { COST_DIFF_KIND } from './cost-diff.js';
import { PLAN_SET_KIND, PLAN_SET_VERSION } from '../plan/render-plan-set-json.js';

/** One job of a plan as the diff reads it. */
export interface DiffJob {
  id: string;
  kind: string;
  model: string;
  credits: number;
  payloadHash: string;
  prompt: string | undefined;
  params: Record<string, unknown>;
  matrixValues: Record<string, MatrixValue>;
}

/** One manifest's plan as the diff reads it. */
export interface DiffPlan {
  manifestFile: string;
  pipeline: string;
  /** `credits.total`: every job, whatever its state. */
  total: number;
  schedule: PlanSchedule | null;
  catalog: PlanCatalog;
  jobs: DiffJob[];
}

/** One side of a diff: a plan report or a plan set, read from a file. */
export interface DiffSide {
  /** The file as given (named in messages). */
  file: string;
  plans: DiffPlan[];
}

/**
 * Reads one side of a diff from the text of a JSON file: a single plan report (`runner plan FILE
 * --format json`) or a plan set (several manifests). A file that is neither, or a report written
 * without the parts a diff needs, is refused with an `INVALID_INPUT` error naming the file and the
 * field, so nothing is compared against a wrong baseline.
 */
export function readDiffSide(text: string, file: string): DiffSide {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw invalid(file, `is not JSON (${(error as Error).message})`);
  }
  if (!isRecord(document)) throw invalid(file, 'is not a runner plan report (a JSON object was expected)');
  if (document.kind === COST_DIFF_KIND) {
    throw invalid(file, 'is a cost diff (`runner diff --format json`), not a plan report');
  }
  if (document.kind === PLAN_SET_KIND) {
    if (document.schemaVersion !== PLAN_SET_VERSION) {
      throw invalid(
        file,
        `is a plan set of version ${JSON.stringify(document.schemaVersion)}; this runner reads version ${PLAN_SET_VERSION}`,
      );
    }
    if (!Array.isArray(document.plans)) throw invalid(file, '`plans` is not a list');
    return { file, plans: document.plans.map((plan, index) => readPlan(plan, file, `plans[${index}].`)) };
  }
  return { file, plans: [readPlan(document, file, '')] };
}

function readPlan(value: unknown, file: string, at: string): DiffPlan {
  if (!isRecord(value) || value.schemaVersion !== 1 || !Array.isArray(value.jobList)) {
    throw invalid(
      file,
      `${at === '' ? '' : `${at.slice(0, -1)} `}is not a runner plan report (\`runner plan FILE --format json\`): no schemaVersion 1 with a jobList`,
    );
  }
  if (value.diffVersion === undefined) {
    throw invalid(
      file,
      `${at}diffVersion is missing: the report was written without the parts a diff needs (by a runner before 0.2, or not as --format json)`,
      'plan that side again with `runner plan FILE --format json`',
    );
  }
  if (value.diffVersion !== 1) {
    throw invalid(
      file,
      `${at}diffVersion is ${JSON.stringify(value.diffVersion)}; this runner reads version 1`,
    );
  }
  const text = (key: string): string => {
    const field = value[key];
    if (typeof field !== 'string') throw invalid(file, `${at}${key} is not a string`);
    return field;
  };
  const credits = value.credits;
  if (!isRecord(credits) || typeof credits.total !== 'number') {
    throw invalid(file, `${at}credits.total is not a number`);
  }
  const paramSets = value.paramSets;
  if (!Array.isArray(paramSets) || !paramSets.every(isRecord)) {
    throw invalid(file, `${at}paramSets is not a list of objects`);
  }
  const jobs: DiffJob[] = [];
  const list: unknown[] = value.jobList;
  for (let index = 0; index < list.length; index++) {
    jobs.push(readJob(list[index], paramSets, file, at, index));
  }
  return {
    manifestFile: text('manifestFile'),
    pipeline: text('pipeline'),
    total: credits.total,
    schedule: readSchedule(value.schedule, file, at),
    catalog: readCatalog(value.catalog, file, at),
    jobs,
  };
}

/** One job, checked field by field (a message names the first wrong one); built only on the way out. */
function readJob(
  job: unknown,
  paramSets: Record<string, unknown>[],
  file: string,
  plan: string,
  index: number,
): DiffJob {
  const at = `${plan}jobList[${index}].`;
  if (!isRecord(job)) throw invalid(file, `${at.slice(0, -1)} is not an object`);
  const { id, kind, model, credits, payloadHash, prompt, paramsRef, matrixValues } = job;
  if (typeof id !== 'string') throw invalid(file, `${at}id is not a string`);
  if (typeof kind !== 'string') throw invalid(file, `${at}kind is not a string`);
  if (typeof model !== 'string') throw invalid(file, `${at}model is not a string`);
  if (typeof credits !== 'number' || !Number.isFinite(credits)) {
    throw invalid(file, `${at}credits is not a number`);
  }
  if (typeof payloadHash !== 'string') throw invalid(file, `${at}payloadHash is not a string`);
  if (prompt !== undefined && typeof prompt !== 'string') throw invalid(file, `${at}prompt is not a string`);
  const params = typeof paramsRef === 'number' ? paramSets[paramsRef] : undefined;
  if (params === undefined) throw invalid(file, `${at}paramsRef is not an index of ${plan}paramSets`);
  if (!isRecord(matrixValues)) throw invalid(file, `${at}matrixValues is not an object`);
  return {
    id,
    kind,
    model,
    credits,
    payloadHash,
    prompt,
    params,
    matrixValues: matrixValues as Record<string, MatrixValue>,
  };
}

function readSchedule(value: unknown, file: string, at: string): PlanSchedule | null {
  if (value === null || value === undefined) return null;
  if (!isRecord(value) || typeof value.label !== 'string' || typeof value.runsPerMonth !== 'number') {
    throw invalid(file, `${at}schedule is not { label, runsPerMonth }`);
  }
  return { label: value.label, runsPerMonth: value.runsPerMonth };
}

function readCatalog(value: unknown, file: string, at: string): PlanCatalog {
  if (!isRecord(value) || typeof value.pricesHash !== 'string' || !isRecord(value.prices)) {
    throw invalid(file, `${at}catalog is not { source, pricesHash, prices }`);
  }
  const source = value.source;
  if (source !== 'service' && source !== 'file' && source !== 'simulator') {
    throw invalid(file, `${at}catalog.source is not service, file or simulator`);
  }
  const prices: Record<string, string> = {};
  for (const [slug, rule] of Object.entries(value.prices)) {
    if (typeof rule !== 'string') throw invalid(file, `${at}catalog.prices.${slug} is not a string`);
    prices[slug] = rule;
  }
  return {
    source,
    ...(typeof value.path === 'string' ? { path: value.path } : {}),
    ...(typeof value.fallbackFor === 'string' ? { fallbackFor: value.fallbackFor } : {}),
    ...(typeof value.fetchedAt === 'string' ? { fetchedAt: value.fetchedAt } : {}),
    pricesHash: value.pricesHash,
    prices,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(file: string, problem: string, hint?: string): RunnerError {
  return new RunnerError('INVALID_INPUT', `${file}: ${problem}`, {
    hint: hint ?? 'give `runner diff` two files written by `runner plan --format json`',
  });
}

/**
 * A plan report made in this process (`runner plan --compare-to`) as the diff reads it, without a
 * trip through JSON. The report must have been made with `diffData` (its `diffVersion` set).
 */
export function planFromReport(report: CostReportView): DiffPlan {
  if (report.diffVersion === undefined || report.catalog === undefined) {
    throw new RunnerError('INTERNAL', 'a plan compared by runner diff was made without its diff data');
  }
  const jobs: DiffJob[] = [];
  for (const job of report.jobList) {
    jobs.push({
      id: job.id,
      kind: job.kind,
      model: job.model,
      credits: job.credits,
      payloadHash: job.payloadHash ?? '',
      prompt: job.prompt,
      params: (job.paramsRef === undefined ? undefined : report.paramSets?.[job.paramsRef]) ?? {},
      matrixValues: job.matrixValues,
    });
  }
  return {
    manifestFile: report.manifestFile,
    pipeline: report.pipeline,
    total: report.credits.total,
    schedule: report.schedule ?? null,
    catalog: report.catalog,
    jobs,
  };
}
