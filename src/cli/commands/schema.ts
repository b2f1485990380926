import { readFile, writeFile } from 'node:fs/promises';
import { buildManifestSchema } from '../../catalog/manifest-schema.js';
import { PIPELINE_SCHEMA_URL } from '../../manifest/validate-schema.js';
import type { CommandContext } from '../../app/context.js';
import type { Outcome } from '../../app/outcome.js';
import { parseStringOption } from '../parse/values.js';
import { readCatalog } from '../../app/init.js';
import { withConnection } from '../connect.js';

/**
 * `runner schema [--catalog F] [--out FILE]`: the manifest JSON Schema with each model's params typed
 * from the catalog, for editors (point `# yaml-language-server: $schema=` at the file).
 */
export async function runSchema(
  ctx: CommandContext,
  _args: string[],
  options: Record<string, unknown>,
): Promise<Outcome> {
  const catalog = await readCatalog(parseStringOption(options.catalog), () =>
    withConnection(ctx, ({ client }) => client.listModels()),
  );
  const base = JSON.parse(await readFile(PIPELINE_SCHEMA_URL, 'utf8')) as Record<string, unknown>;
  const text = `${JSON.stringify(buildManifestSchema(base, catalog), null, 2)}\n`;
  const out = parseStringOption(options.out);
  if (out === undefined) ctx.output.out(text.trimEnd());
  else {
    await writeFile(out, text);
    ctx.output.err(
      `Wrote ${out}: point a manifest's first line at it, e.g. # yaml-language-server: $schema=${out}`,
    );
  }
  return 'done';
}
