import { RunnerError } from '../errors.js';
import type { CostDiff } from '../diff/cost-diff.js';
import { computeCostDiff } from '../diff/compute-diff.js';
import { checkGuardrails, type GuardrailLimits } from '../diff/guardrails.js';
import { readDiffSide, type DiffSide } from '../diff/plan-document.js';
import type { Outcome } from './outcome.js';

/** What `runner diff` needs; reading files is passed in, so the use case is tested without a disk. */
export interface DiffFilesInput {
  /** The base side's plan report or plan set (the target branch). */
  baseFile: string;
  /** The head side's (the change). */
  headFile: string;
  limits: GuardrailLimits;
  /** Reads a file as UTF-8 text. */
  readText: (file: string) => Promise<string>;
}

/** The diff, and whether a guardrail was crossed (`increase-limit-crossed`, exit 3). */
export interface DiffOutcome {
  diff: CostDiff;
  outcome: Extract<Outcome, 'done' | 'increase-limit-crossed'>;
}

/**
 * `runner diff BASE HEAD`: reads both sides (refusing, with exit 2, a file that is not a plan report
 * written with its diff parts), computes the diff and checks the guardrails.
 */
export async function diffPlanFiles(input: DiffFilesInput): Promise<DiffOutcome> {
  const [base, head] = await Promise.all([
    readSide(input.baseFile, input.readText),
    readSide(input.headFile, input.readText),
  ]);
  return diffSides(base, head, input.limits);
}

/** The diff of two sides already read, with its guardrails (also `runner plan --compare-to`'s). */
export function diffSides(base: DiffSide, head: DiffSide, limits: GuardrailLimits): DiffOutcome {
  if (base.plans.length === 0 && head.plans.length === 0) {
    // One empty side is the first (or last) pull request; two are a glob that matches nothing anywhere.
    throw new RunnerError('INVALID_INPUT', `${base.file} and ${head.file}: neither side has a manifest`, {
      hint: 'check the manifests given to `runner plan` (a folder or glob that matches nothing on both sides)',
    });
  }
  const diff = computeCostDiff(base, head);
  diff.guardrails = checkGuardrails(diff, limits);
  return {
    diff,
    outcome: diff.guardrails.some((check) => check.crossed) ? 'increase-limit-crossed' : 'done',
  };
}

/** One side from its file, with a clear error for a file that cannot be read. */
export async function readSide(file: string, readText: (file: string) => Promise<string>): Promise<DiffSide> {
  let text: string;
  try {
    text = await readText(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'is a folder'
          : ((error as Error).message ?? String(error));
    throw new RunnerError('INVALID_INPUT', `${file}: cannot be read (${why})`, {
      hint: 'write it with `runner plan FILE --format json --out FILE`',
    });
  }
  return readDiffSide(text, file);
}
