import { parseStringOption } from './parse-options.js';

/** The run id of apply/plan/status: `--run`, default `default`. */
export function readRunId(options: Record<string, unknown>): string {
  return parseStringOption(options.run) ?? 'default';
}

/** `--state-dir`, when given. */
export function readStateDir(options: Record<string, unknown>): { stateDir?: string } {
  return typeof options.stateDir === 'string' ? { stateDir: options.stateDir } : {};
}
