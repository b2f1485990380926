import type { ExpandedJob, YamlPath } from '../manifest/types.js';
import type { CompiledModelConfig } from './config-schema.js';
import { describeParamError } from './describe-error.js';
import { IMAGE_JOB_PARAMS, REFERENCE_IMAGES_PARAM, getImageJobValidator } from './image-rules.js';
import { didYouMean } from '../suggest.js';

/** Receives one problem of a job; `param` + `rest` name where in the params it is. */
export type ReportParamIssue = (issue: {
  severity: 'error' | 'warning';
  code: string;
  message: string;
  param?: string;
  rest?: readonly (string | number)[];
  hint?: string;
}) => void;

const RESERVED_PARAMS = ['model', 'prompt', 'idempotencyKey'] as const;
const MAX_LISTED_NAMES = 12;

/**
 * Checks a job's params against its model's compiled config and, for `kind: image`, against spec 4.3
 * (which also makes the spec's fields known params even when the catalog config omits them).
 * Reports every problem; the caller keeps one problem per param path.
 */
export function checkParams(job: ExpandedJob, compiled: CompiledModelConfig, report: ReportParamIssue): void {
  const isImage = job.kind === 'image';
  for (const name of RESERVED_PARAMS) {
    if (job.params[name] === undefined) continue;
    const message =
      name === 'idempotencyKey'
        ? `param "idempotencyKey" is set by the runner (derived from the job id and payload); remove it`
        : `param ${JSON.stringify(name)} belongs at the job level; write it as the job's "${name}:" instead of under params`;
    report({ severity: 'error', code: 'reserved-param', message, param: name });
  }

  if (compiled.hasConfig && !compiled.validate(job.params)) {
    for (const error of compiled.validate.errors ?? []) {
      const problem = describeParamError(error);
      if (problem.code === 'unknown-param') {
        if (isImage && IMAGE_JOB_PARAMS.has(problem.param)) continue;
        reportUnknownParam(job, compiled, problem.param, report);
        continue;
      }
      report({ severity: 'error', ...problem });
    }
  }
  if (!compiled.hasConfig) reportUncheckedParams(job, compiled, report);

  checkRefImageCount(job, compiled, report);

  if (isImage && !getImageJobValidator()(job.params)) {
    for (const error of getImageJobValidator().errors ?? []) {
      report({ severity: 'error', ...describeParamError(error) });
    }
  }
}

function reportUnknownParam(
  job: ExpandedJob,
  compiled: CompiledModelConfig,
  param: string,
  report: ReportParamIssue,
): void {
  const known = [...compiled.params.keys()];
  if (job.kind === 'image')
    for (const name of IMAGE_JOB_PARAMS) if (!compiled.params.has(name)) known.push(name);
  const listed =
    known.length === 0
      ? 'it takes no params'
      : `known params: ${known.slice(0, MAX_LISTED_NAMES).join(', ')}${known.length > MAX_LISTED_NAMES ? ', ...' : ''}`;
  const hint = didYouMean(param, known);
  report({
    severity: 'error',
    code: 'unknown-param',
    message: `unknown param ${JSON.stringify(param)} for model ${JSON.stringify(job.model)} (the service would silently ignore it); ${listed}`,
    param,
    ...(hint === undefined ? {} : { hint }),
  });
}

/** A model without a config: its params cannot be checked, which the user should know. */
function reportUncheckedParams(
  job: ExpandedJob,
  compiled: CompiledModelConfig,
  report: ReportParamIssue,
): void {
  const unchecked = Object.keys(job.params).filter(
    (name) => !(job.kind === 'image' && IMAGE_JOB_PARAMS.has(name)) && !compiled.params.has(name),
  );
  if (unchecked.length === 0) return;
  report({
    severity: 'warning',
    code: 'params-not-checked',
    message: `model ${JSON.stringify(job.model)} has no config in the catalog, so params ${unchecked.map((n) => JSON.stringify(n)).join(', ')} cannot be checked; a misspelled one would be silently ignored by the service`,
  });
}

/** Spec 2.4 `maxRefImages` bounds the model's reference-image list (`referenceImages` for image jobs). */
function checkRefImageCount(job: ExpandedJob, compiled: CompiledModelConfig, report: ReportParamIssue): void {
  const max = compiled.maxRefImages;
  const param = compiled.refImagesParam ?? (job.kind === 'image' ? REFERENCE_IMAGES_PARAM : undefined);
  if (max === undefined || param === undefined) return;
  const value = job.params[param];
  if (!Array.isArray(value) || value.length <= max) return;
  report({
    severity: 'error',
    code: 'too-many-reference-images',
    message: `param ${JSON.stringify(param)} takes at most ${max} images for model ${JSON.stringify(job.model)} (maxRefImages); received ${value.length}`,
    param,
  });
}

/** The YAML path of a param value (or an item of it), falling back to the job entry. */
export function paramPath(
  job: ExpandedJob,
  param: string | undefined,
  rest: readonly (string | number)[] = [],
): YamlPath {
  const origin = param === undefined ? undefined : job.origins.params[param];
  return origin === undefined ? job.origins.job : [...origin, ...rest];
}
