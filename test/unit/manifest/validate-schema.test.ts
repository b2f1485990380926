import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { JOB_KINDS } from '../../../src/kinds/types.js';
import { FAILURE_KINDS } from '../../../src/service/types.js';
import { loadManifest } from '../../../src/manifest/load-manifest.js';
import { PIPELINE_SCHEMA_URL } from '../../../src/manifest/validate-schema.js';

interface SchemaNode {
  description?: string;
  properties?: Record<string, SchemaNode>;
  definitions?: Record<string, SchemaNode>;
  enum?: unknown[];
  $ref?: string;
  [key: string]: unknown;
}

const schema = JSON.parse(readFileSync(PIPELINE_SCHEMA_URL, 'utf8')) as SchemaNode;
const definitions = schema.definitions ?? {};

describe('pipeline.schema.json', () => {
  it('lists exactly the job kinds of src/kinds', () => {
    expect(definitions['kind']?.enum).toEqual([...JOB_KINDS]);
  });

  it('lists exactly the failure kinds of spec 7.3', () => {
    const retry = schema.properties?.['retry']?.properties?.['failureKinds'] as SchemaNode;
    expect((retry['propertyNames'] as SchemaNode).enum).toEqual([...FAILURE_KINDS]);
  });

  it('describes every property, directly or through its $ref, for editor help', () => {
    const missing: string[] = [];
    const walk = (node: SchemaNode, path: string): void => {
      for (const [name, child] of Object.entries(node.properties ?? {})) {
        const target = child.$ref ? definitions[child.$ref.replace('#/definitions/', '')] : child;
        if (!target?.description) missing.push(`${path}.${name}`);
        walk(child, `${path}.${name}`);
      }
    };
    walk(schema, '$');
    for (const [name, definition] of Object.entries(definitions)) walk(definition, `#/definitions/${name}`);
    expect(missing).toEqual([]);
  });
});

async function issuesOf(source: string): Promise<[string, string, string, string | undefined][]> {
  const { issues } = await loadManifest('m.yaml', { source });
  return issues.map((issue) => [
    `${issue.location?.line}:${issue.location?.col}`,
    issue.code,
    issue.message,
    issue.hint,
  ]);
}

describe('validateManifestSchema (through loadManifest)', () => {
  it('reports all errors at once, each at its own line', async () => {
    expect(
      await issuesOf(`version: 1
name: all
promt: x
jobs:
  - id: a
    model: 3
    kind: imag
    matrix: { size: [] }
  - model: m
`),
    ).toEqual([
      [
        '3:1',
        'unknown-key',
        'unknown key "promt" in the manifest',
        'allowed keys: $schema, version, name, budget, schedule, maxJobs, output, report, defaults, vars, retry, jobs',
      ],
      [
        '6:12',
        'invalid-type',
        'jobs[0].model must be a string; received number 3',
        'write it in quotes: "3"',
      ],
      [
        '7:11',
        'invalid-enum',
        'jobs[0].kind must be one of image, render-video, voiceover-video, stock-video, slideshow-video, article-video; received string "imag"',
        'did you mean "image"?',
      ],
      [
        '8:21',
        'empty-matrix-axis',
        'matrix axis "size" in jobs[0].matrix has no values',
        'give the axis at least one value, or remove it',
      ],
      ['9:5', 'missing-key', 'jobs[1] is missing the required key "id"', undefined],
    ]);
  });

  it('refuses a schedule that is neither a named frequency nor { runsPerMonth }, one clear issue each', async () => {
    const at = (schedule: string) =>
      issuesOf(`version: 1\nname: s\nschedule: ${schedule}\njobs: [{ id: a, model: m }]\n`);
    expect(await at('fortnightly')).toEqual([
      [
        '3:11',
        'invalid-enum',
        'schedule must be one of nightly, daily, weekly, hourly; received string "fortnightly"',
        undefined,
      ],
    ]);
    expect(await at('{ runsPerMonth: 0 }')).toEqual([
      ['3:27', 'invalid-value', 'schedule.runsPerMonth must be > 0; received number 0', undefined],
    ]);
    expect((await at('{ runs: 3 }')).map(([where, code]) => `${where} ${code}`)).toEqual([
      '3:11 missing-key',
      '3:13 unknown-key',
    ]);
    expect(await at('weekly')).toEqual([]);
  });

  it('rejects invalid variable names in vars and matrices', async () => {
    expect(await issuesOf('version: 1\nname: v\nvars: { my-var: 1 }\njobs: [{ id: a, model: m }]\n')).toEqual(
      [
        [
          '3:9',
          'invalid-variable-name',
          '"my-var" in vars is not a valid variable name',
          "use letters, digits and '_', starting with a letter or '_' (templates refer to it as {{ name }})",
        ],
      ],
    );
  });

  it('rejects a vars value that is not a scalar', async () => {
    expect(await issuesOf('version: 1\nname: v\nvars: { a: [1] }\njobs: [{ id: a, model: m }]\n')).toEqual([
      ['3:12', 'invalid-type', 'vars.a must be a string, a number or a boolean; received a list', undefined],
    ]);
  });

  it('suggests quotes when YAML read a number or boolean where a string belongs', async () => {
    expect(await issuesOf('version: 1\nname: 2024\njobs: [{ id: 5, model: m }]\n')).toEqual([
      ['2:7', 'invalid-type', 'name must be a string; received number 2024', 'write it in quotes: "2024"'],
      ['3:14', 'invalid-type', 'jobs[0].id must be a string; received number 5', 'write it in quotes: "5"'],
    ]);
  });

  it('reports an empty id or name once, not also as a bad pattern', async () => {
    expect(await issuesOf('version: 1\nname: ""\njobs: [{ id: "", model: m }]\n')).toEqual([
      ['2:7', 'invalid-value', 'name must not be empty', undefined],
      ['3:14', 'invalid-value', 'jobs[0].id must not be empty', undefined],
    ]);
  });

  it('accepts an editor $schema key', async () => {
    expect(await issuesOf('$schema: ./s.json\nversion: 1\nname: v\njobs: [{ id: a, model: m }]\n')).toEqual(
      [],
    );
  });
});
