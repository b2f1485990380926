import { readFile, writeFile } from 'node:fs/promises';
import { parseStringOption } from '../parse/values.js';
import { defineCommand, flag, SERVICE_FLAGS } from './command.js';

/**
 * `runner schema [--catalog F] [--out FILE]`: the manifest JSON Schema with each model's params typed
 * from the catalog, for editors (point `# yaml-language-server: $schema=` at the file).
 */
export const schemaCommand = defineCommand({
  name: 'schema',
  args: '',
  description: "Write the manifest's JSON Schema with every model's params typed from the catalog",
  flags: [
    flag('--catalog <file>', 'Use a saved catalog (from `runner models --json`) instead of the service'),
    flag('--out <file>', 'Write to this file instead of stdout'),
  ],
  globals: SERVICE_FLAGS,
  examples: ['runner schema --catalog catalog.json --out pipeline.schema.json'],
  parse: ({ flags }) => ({ catalog: parseStringOption(flags.catalog), out: parseStringOption(flags.out) }),
  async run(ctx, { catalog: catalogFile, out }) {
    const { buildManifestSchema } = await import('../../catalog/manifest-schema.js');
    const { PIPELINE_SCHEMA_URL } = await import('../../manifest/validate-schema.js');
    const { readCatalog } = await import('../../app/init.js');
    const { withConnection } = await import('../effects/connect.js');
    const catalog = await readCatalog(catalogFile, () =>
      withConnection(ctx, ({ client }) => client.listModels()),
    );
    const base = JSON.parse(await readFile(PIPELINE_SCHEMA_URL, 'utf8')) as Record<string, unknown>;
    const text = `${JSON.stringify(buildManifestSchema(base, catalog), null, 2)}\n`;
    if (out === undefined) ctx.output.out(text.trimEnd());
    else {
      await writeFile(out, text);
      ctx.output.err(
        `Wrote ${out}: point a manifest's first line at it, e.g. # yaml-language-server: $schema=${out}`,
      );
    }
    return 'done';
  },
});
