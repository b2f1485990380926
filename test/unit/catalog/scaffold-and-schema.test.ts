import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { buildManifestSchema } from '../../../src/catalog/manifest-schema.js';
import { scaffoldManifest } from '../../../src/catalog/scaffold-manifest.js';
import { kindForModel } from '../../../src/kinds/index.js';
import { validateJobsAgainstCatalog } from '../../../src/catalog/validate-job.js';
import { createFileInfoReader } from '../../../src/catalog/read-file-info.js';
import { loadManifest } from '../../../src/manifest/load-manifest.js';
import { expandJobs } from '../../../src/manifest/expand-jobs.js';
import { PIPELINE_SCHEMA_URL } from '../../../src/manifest/validate-schema.js';
import { parse } from 'yaml';
import { buildCatalog } from '../../../src/simulator/catalog.js';

const catalog = buildCatalog('chatgpt-image-sangtao');
const runnable = catalog.filter((model) => kindForModel(model) !== undefined);

describe('runner init scaffolds (#10.6)', () => {
  it('gives every runnable model a manifest that validates against the catalog as written', async () => {
    expect(runnable.length).toBeGreaterThan(3);
    for (const model of runnable) {
      const text = scaffoldManifest({ model, name: 'scaffold' });
      const { loaded, issues } = await loadManifest(`${model.slug}.yaml`, { source: text });
      expect(issues, model.slug).toEqual([]);
      const expanded = expandJobs(loaded!, { env: {}, date: '2026-11-21' });
      const checked = validateJobsAgainstCatalog(expanded.jobs, catalog, {
        locate: (path) => loaded!.locate(path),
        manifestDir: '/tmp',
        fileInfo: createFileInfoReader(),
      });
      expect(
        checked.issues.filter((issue) => issue.severity === 'error'),
        model.slug,
      ).toEqual([]);
    }
  });

  it('comments every field with its type, options, bounds and default', () => {
    const model = catalog.find((entry) => entry.slug === 'voiceover-standard')!;
    const text = scaffoldManifest({ model, name: 'v' });
    expect(text).toContain('kind: voiceover-video');
    expect(text).toMatch(
      /# Scenes: number; min 1, max 20; default 5; multiplies the cost; optional\n\s+# sceneCount: 5/,
    );
    expect(text).toMatch(/# Voice: card-select; options: "mai", "nam", "linh"; default "mai"; optional/);
  });
});

describe('runner schema (#10.6)', () => {
  const base = JSON.parse(readFileSync(PIPELINE_SCHEMA_URL, 'utf8')) as Record<string, unknown>;
  const schema = buildManifestSchema(base, catalog);
  const validate = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true }).compile(schema);

  it("types each model's params: wrong options and unknown keys are refused, right ones accepted", () => {
    const manifest = (params: string) =>
      parse(
        `version: 1\nname: s\njobs:\n  - { id: a, model: chatgpt-image-sangtao, prompt: p, params: ${params} }\n`,
      ) as unknown;
    expect(validate(manifest('{ aspectRatio: "16:9", dpi: 300 }'))).toBe(true);
    expect(validate(manifest('{ aspectRatio: "2:1" }'))).toBe(false);
    expect(validate(manifest('{ dpi: 5000 }'))).toBe(false);
    expect(validate(manifest('{ aspectRatoi: "16:9" }'))).toBe(false);
  });

  it('types the params of jobs that take their model from defaults, and defaults.params', () => {
    const manifest = (jobParams: string, defaultParams = '{}') =>
      parse(
        `version: 1\nname: s\ndefaults: { model: chatgpt-image-sangtao, params: ${defaultParams} }\njobs:\n  - { id: a, prompt: p, params: ${jobParams} }\n`,
      ) as unknown;
    expect(validate(manifest('{ aspectRatio: "16:9" }'))).toBe(true);
    expect(validate(manifest('{ aspectRatio: "2:1" }'))).toBe(false);
    expect(validate(manifest('{ aspectRatoi: "16:9" }'))).toBe(false);
    expect(validate(manifest('{}', '{ dpi: 5000 }'))).toBe(false);
    // A job naming its own model is typed by that model, not by the default.
    const own = parse(
      `version: 1\nname: s\ndefaults: { model: chatgpt-image-sangtao }\njobs:\n  - { id: a, model: voiceover-standard, prompt: p, params: { sceneCount: 5 } }\n`,
    ) as unknown;
    expect(validate(own)).toBe(true);
  });

  it('leaves the base schema untouched', () => {
    expect(JSON.stringify(base)).not.toContain('chatgpt-image-sangtao');
  });
});
