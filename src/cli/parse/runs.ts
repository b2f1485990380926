import type { RunsOptions } from '../../app/runs.js';
import { readStateDir, type Flags } from './common.js';

/** `runner runs` flags → {@link RunsOptions}. */
export function parseRunsOptions(flags: Flags): RunsOptions {
  return { state: readStateDir(flags), json: flags.json === true };
}
