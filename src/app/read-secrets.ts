import { apiKeyInEnv, readApiKey } from '../service/api-key.js';
import type { SecretGuard } from '../manifest/secret-guard.js';
import type { CommandContext } from './context.js';

/**
 * The API key's value as the client would use it ({@link readApiKey}: `--api-key-file` over
 * `MEDIAGEN_API_KEY`), so that expansion can refuse templates that read it and redact it from anything
 * rendered. A key file that cannot be read adds nothing here: the connection reports that problem
 * itself. `MEDIAGEN_API_KEY` overridden by a key file is still a key, and kept out as well.
 */
export async function readSecretGuard(
  ctx: Pick<CommandContext, 'env'> & { global?: Pick<CommandContext['global'], 'apiKeyFile'> },
): Promise<SecretGuard> {
  const keyFile = ctx.global?.apiKeyFile;
  const key = await readApiKey({
    env: ctx.env,
    ...(keyFile === undefined ? {} : { apiKeyFile: keyFile }),
  }).catch(() => undefined);
  const shadowed = apiKeyInEnv(ctx.env);
  const values = [key?.value, shadowed].filter((value): value is string => value !== undefined);
  return { values: [...new Set(values)] };
}
