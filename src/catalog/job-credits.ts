import { readMultiplier, type CompiledModelConfig } from './config-schema.js';

/** A job's estimated credits, and the multiplier params whose value could not be read as a number. */
export interface JobCredits {
  credits: number;
  /** Multiplier params whose value is not numeric; they count as 1 (reported as a warning). */
  unreadable: string[];
}

/**
 * Spec 2.4: the model's `creditCost` × the value of every `creditCostMultiplier` param. A select or
 * card-select multiplier counts with the numeric value of the chosen option (`"2"` and `"2x"` → 2).
 * A multiplier the job leaves out (optional, no default) counts as 1; so does a non-numeric value,
 * which is reported in `unreadable`.
 */
export function computeJobCredits(
  creditCost: number,
  compiled: CompiledModelConfig,
  params: Readonly<Record<string, unknown>>,
): JobCredits {
  let credits = creditCost;
  const unreadable: string[] = [];
  for (const param of compiled.multipliers) {
    const value = params[param.name];
    if (value === undefined) continue;
    const factor = readMultiplier(value);
    if (factor === undefined) unreadable.push(param.name);
    else credits *= factor;
  }
  return { credits, unreadable };
}
