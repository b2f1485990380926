import { RunnerError } from '../errors.js';
import { COST_DIFF_KIND, COST_DIFF_VERSION, type CostDiff } from './cost-diff.js';

/**
 * Reads a cost diff document (`runner diff --format json`) from its text, checking what a reader
 * relies on: the kind, the version, and the shape of every figure and list that is rendered. A file
 * that is not one (a plan report, a newer version, a hand-edited diff) is refused with the file and
 * the first place that is wrong, so `runner comment github` never posts half a comment.
 */
export function parseCostDiff(text: string, file: string): CostDiff {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalid(file, `is not JSON (${(error as Error).message})`);
  }
  const doc = asRecord(value);
  if (doc === undefined || doc.kind !== COST_DIFF_KIND) {
    const kind =
      doc !== undefined && typeof doc.kind === 'string' ? ` (its kind is "${doc.kind.slice(0, 40)}")` : '';
    throw invalid(file, `is not a cost diff${kind}: expected "kind": "${COST_DIFF_KIND}"`, {
      hint: 'Make it with `runner diff base.json head.json --format json > diff.json`.',
    });
  }
  if (doc.schemaVersion !== COST_DIFF_VERSION) {
    throw invalid(
      file,
      `has schemaVersion ${JSON.stringify(doc.schemaVersion)}; this runner reads version ${COST_DIFF_VERSION}`,
      { hint: 'Comment with the same runner release that made the diff.' },
    );
  }
  const problem = findProblem(doc);
  if (problem !== undefined) throw invalid(file, `is not a valid cost diff: ${problem}`);
  return value as CostDiff;
}

function invalid(file: string, what: string, options?: { hint: string }): RunnerError {
  return new RunnerError('INVALID_INPUT', `${file} ${what}.`, options);
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

type Check = (value: unknown, at: string) => string | undefined;

const number: Check = (value, at) =>
  typeof value === 'number' && Number.isFinite(value) ? undefined : `${at} must be a number`;
const string: Check = (value, at) => (typeof value === 'string' ? undefined : `${at} must be a string`);
const optional =
  (check: Check): Check =>
  (value, at) =>
    value === undefined ? undefined : check(value, at);
const nullable =
  (check: Check): Check =>
  (value, at) =>
    value === null ? undefined : check(value, at);
const oneOf =
  (...allowed: string[]): Check =>
  (value, at) =>
    allowed.includes(value as string) ? undefined : `${at} must be one of ${allowed.join(', ')}`;
const object =
  (fields: Record<string, Check>): Check =>
  (value, at) => {
    const record = asRecord(value);
    if (record === undefined) return `${at} must be an object`;
    for (const [key, check] of Object.entries(fields)) {
      const problem = check(record[key], `${at}.${key}`);
      if (problem !== undefined) return problem;
    }
    return undefined;
  };
const list =
  (check: Check): Check =>
  (value, at) => {
    if (!Array.isArray(value)) return `${at} must be a list`;
    for (const [index, item] of value.entries()) {
      const problem = check(item, `${at}[${index}]`);
      if (problem !== undefined) return problem;
    }
    return undefined;
  };

const creditDelta = { base: number, head: number, delta: number, percent: nullable(number) };
const groupDelta = { ...creditDelta, jobs: object({ base: number, head: number }) };
const jobOnOneSide = object({ id: string, model: string, credits: number });
const catalogSource = object({
  source: oneOf('service', 'file', 'simulator'),
  path: optional(string),
  fetchedAt: optional(string),
  pricesHash: string,
});
const manifest = object({
  path: string,
  pipeline: string,
  change: oneOf('added', 'removed', 'changed', 'unchanged'),
  schedule: nullable(object({ label: string, runsPerMonth: number })),
  scheduleBefore: optional(nullable(object({ label: string, runsPerMonth: number }))),
  perRun: object(creditDelta),
  perMonth: nullable(object(creditDelta)),
  counts: object(
    Object.fromEntries(
      ['base', 'head', 'added', 'removed', 'changed', 'renamed', 'unchanged'].map((key) => [key, number]),
    ),
  ),
  jobs: object({
    added: list(jobOnOneSide),
    removed: list(jobOnOneSide),
    changed: list(
      object({
        id: string,
        baseModel: string,
        headModel: string,
        credits: object(creditDelta),
        changed: list(string),
        changes: optional(list(object({ path: string, base: nullable(string), head: nullable(string) }))),
      }),
    ),
    renamed: list(object({ from: string, to: string, credits: object(creditDelta) })),
  }),
  byModel: list(object({ ...groupDelta, model: string })),
  byAxisValue: list(object({ ...groupDelta, axis: string, value: string })),
});
const costDiff = object({
  total: object(creditDelta),
  totalPerMonth: nullable(object(creditDelta)),
  catalogs: object({
    base: catalogSource,
    head: catalogSource,
    samePrices: (value, at) => (typeof value === 'boolean' ? undefined : `${at} must be true or false`),
    priceChanges: list(object({ model: string, base: optional(string), head: optional(string) })),
  }),
  manifests: list(manifest),
  guardrails: list(
    object({
      limit: oneOf('increase', 'increase-percent'),
      threshold: number,
      per: optional(string),
      actual: number,
      crossed: (value, at) => (typeof value === 'boolean' ? undefined : `${at} must be true or false`),
      message: string,
    }),
  ),
});

function findProblem(doc: Record<string, unknown>): string | undefined {
  return costDiff(doc, '$');
}
