import type { RenderOptions } from '../../app/render.js';
import { readTargeting, readVarFlags, type Flags } from './common.js';

/** `runner render` flags → {@link RenderOptions}. */
export function parseRenderOptions(flags: Flags): RenderOptions {
  const { only, exclude } = readTargeting(flags);
  return { vars: readVarFlags(flags), targeting: { only, exclude }, json: flags.json === true };
}
