import type { StatusOptions } from '../../app/status.js';
import { readRunFlags, type Flags } from './common.js';

/** `runner status` flags → {@link StatusOptions}. */
export function parseStatusOptions(flags: Flags): StatusOptions {
  return { ...readRunFlags(flags), json: flags.json === true };
}
