import { readFile } from 'node:fs/promises';
import { API_KEY_ENV, type SecretGuard } from '../manifest/secret-guard.js';
import type { CommandContext } from './context.js';

/**
 * The API key's value as the client would use it (`--api-key-file` and `MEDIAGEN_API_KEY`), so that
 * expansion can refuse templates that read it and redact it from anything rendered. A key file that
 * cannot be read adds nothing here: the connection reports that problem itself.
 */
export async function readSecretGuard(
  ctx: Pick<CommandContext, 'env'> & { global?: Pick<CommandContext['global'], 'apiKeyFile'> },
): Promise<SecretGuard> {
  const values: string[] = [];
  const fromEnv = ctx.env[API_KEY_ENV]?.trim();
  if (fromEnv !== undefined && fromEnv !== '') values.push(fromEnv);
  const keyFile = ctx.global?.apiKeyFile;
  if (keyFile !== undefined) {
    const text = await readFile(keyFile, 'utf8').catch(() => '');
    if (text.trim() !== '') values.push(text.trim());
  }
  return { values };
}
