import type { CommandContext } from '../context.js';
export function runApply(_ctx: CommandContext, _a: string[], _o: Record<string, unknown>): Promise<number> {
  throw new Error('TEMP');
}
