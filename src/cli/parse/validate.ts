import type { ValidateOptions } from '../../app/validate.js';
import { readManifestFlags, type Flags } from './common.js';

/** `runner validate` flags → {@link ValidateOptions}. */
export function parseValidateOptions(flags: Flags): ValidateOptions {
  return { ...readManifestFlags(flags), strict: flags.strict === true, json: flags.json === true };
}
