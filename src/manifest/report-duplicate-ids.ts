import { getMatrixAxes, matrixValueText, type MatrixCombination } from './expand-matrix.js';
import { formatLocation } from './format-issue.js';
import { compileTemplate } from './template.js';
import type { LoadedManifest, ValidationIssue } from './types.js';

/** One expanded job id and the job entry that produced it. */
export interface IdProducer {
  id: string;
  specIndex: number;
  matrixValues: MatrixCombination;
}

/** What the whole-run id checks need, collected by `createJobIndex` without keeping every job. */
export interface IdCheckInput {
  /** Every producer of each id produced more than once, ids in order of first appearance. */
  duplicates: readonly (readonly IdProducer[])[];
  /** Distinct ids equal but for letter case, grouped (see `createJobIndex`). */
  caseGroups: readonly (readonly string[])[];
  /** The job entry that first produced an id. */
  specIndexOf(id: string): number;
}

/**
 * One issue per job id produced more than once, at the second producer's id, naming every job entry
 * that produced it with its location. When a matrix entry repeats an id, the hint names the axes its
 * id template leaves out.
 */
export function reportDuplicateIds(
  loaded: Pick<LoadedManifest, 'manifest' | 'locate'>,
  input: IdCheckInput,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const list of input.duplicates) {
    const id = list[0]!.id;
    const specs = [...new Set(list.map((p) => p.specIndex))];
    const describeProducer = (producer: IdProducer): string => {
      const where = `jobs[${producer.specIndex}] (${formatLocation(loaded.locate(['jobs', producer.specIndex, 'id']))})`;
      const values = Object.entries(producer.matrixValues).map(
        ([key, value]) => `${key}=${matrixValueText(value)}`,
      );
      return values.length === 0 ? where : `${where} with ${values.join(', ')}`;
    };
    // Name two producers from different entries when there are any: that is the collision to fix.
    const first = list[0]!;
    const second = list.find((p) => p.specIndex !== first.specIndex) ?? list[1]!;
    const more = list.length - 2;
    issues.push({
      severity: 'error',
      code: 'duplicate-id',
      message:
        `job id "${id}" is produced ${list.length} times: by ${describeProducer(first)} and by ${describeProducer(second)}` +
        (more > 0 ? ` (and ${more} more)` : ''),
      jobId: id,
      location: loaded.locate(['jobs', second.specIndex, 'id']),
      hint: hintFor(loaded, specs),
    });
  }
  // One by one: a spread of one issue per group overflows the stack past ~120,000 of them.
  for (const issue of reportCaseCollisions(loaded, input)) issues.push(issue);
  return issues;
}

/** Distinct ids named in a case-collision warning before "and N more". */
const LISTED_CASE_IDS = 3;

/**
 * Ids are file names: ids equal but for letter case share a file on case-insensitive file systems
 * (macOS and Windows by default), where one paid result would overwrite the other.
 */
function reportCaseCollisions(
  loaded: Pick<LoadedManifest, 'locate'>,
  input: IdCheckInput,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const ids of input.caseGroups) {
    if (ids.length < 2) continue;
    const second = ids[1]!;
    const listed = ids.slice(0, LISTED_CASE_IDS).map((id) => JSON.stringify(id));
    const more = ids.length - listed.length;
    const names =
      more > 0
        ? `${listed.join(', ')} and ${more} more`
        : `${listed.slice(0, -1).join(', ')} and ${listed[listed.length - 1]}`;
    issues.push({
      severity: 'warning',
      code: 'ids-differ-in-case',
      message: `job ids ${names} differ only in letter case; on macOS and Windows their result files would overwrite each other`,
      jobId: second,
      location: loaded.locate(['jobs', input.specIndexOf(second), 'id']),
      hint: 'make the ids differ in more than case',
    });
  }
  return issues;
}

function hintFor(loaded: Pick<LoadedManifest, 'manifest'>, specs: number[]): string {
  for (const specIndex of specs) {
    const spec = loaded.manifest.jobs[specIndex];
    if (!spec?.matrix) continue;
    const compiled = compileTemplate(spec.id);
    const used = compiled.ok ? compiled.template.names : [];
    const missing = getMatrixAxes(spec.matrix)
      .map(([name]) => name)
      .filter((name) => !used.includes(name));
    if (missing.length > 0) {
      return `put every matrix axis in the id of jobs[${specIndex}], e.g. add ${missing.map((n) => `{{ ${n} }}`).join(' ')}`;
    }
  }
  return 'give each job a distinct id';
}
