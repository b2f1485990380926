import type { InitOptions } from '../../app/init.js';
import { parseStringOption } from './values.js';
import type { Flags } from './common.js';

/** `runner init` flags → {@link InitOptions}. */
export function parseInitOptions(flags: Flags): InitOptions {
  const model = parseStringOption(flags.model);
  const catalogFile = parseStringOption(flags.catalog);
  return {
    ...(model === undefined ? {} : { model }),
    ...(catalogFile === undefined ? {} : { catalogFile }),
    force: flags.force === true,
  };
}
