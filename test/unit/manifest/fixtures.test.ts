import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateManifestOffline } from '../../../src/manifest/validate-manifest.js';
import type { ValidationIssue } from '../../../src/manifest/types.js';

const FIXTURES = 'test/fixtures/manifests';
const context = { env: {}, date: '2026-11-21' };

/** `line:col`, code, message (the fixture folder is stripped from messages that quote locations). */
type Expected = [position: string, code: string, message: string];

function summarize(issues: ValidationIssue[], dir: string): Expected[] {
  return issues.map((issue) => [
    `${issue.location?.line}:${issue.location?.col}`,
    issue.code,
    issue.message.replaceAll(`${dir}/`, ''),
  ]);
}

const INVALID: Record<string, Expected[]> = {
  'alias-bomb.yaml': [
    [
      '4:8',
      'alias-bomb',
      'the YAML aliases (*name) expand to too many nodes (the limit is 100 alias expansions)',
    ],
  ],
  'bad-kind.yaml': [
    [
      '6:11',
      'invalid-enum',
      'jobs[0].kind must be one of image, render-video, voiceover-video, stock-video, slideshow-video, article-video; received string "imgae"',
    ],
  ],
  'bad-retry.yaml': [
    ['4:16', 'invalid-value', 'retry.maxAttempts must be >= 1; received number 0'],
    [
      '6:5',
      'unknown-key',
      'unknown key "GENERATION_TIMOUT" in retry.failureKinds; expected one of PROMPT_UNCLEAR, CONTENT_REJECTED, TRANSPARENT_CREATION_FAILED, REFERENCE_DOWNLOAD_FAILED, GENERATION_TIMEOUT, QUOTA_EXHAUSTED, SESSION_EXPIRED, INVALID_PAYLOAD',
    ],
    [
      '7:23',
      'invalid-enum',
      'retry.failureKinds.CONTENT_REJECTED must be one of retry, defer, fail; received string "again"',
    ],
  ],
  'bad-version-and-name.yaml': [
    ['1:10', 'invalid-type', 'version must be 1; received number 2'],
    [
      '2:7',
      'invalid-name',
      "name must be letters, digits, '.', '_' or '-', starting with a letter or digit; received string \"my run/1\"",
    ],
  ],
  'colliding-ids.yaml': [
    [
      '6:9',
      'duplicate-id',
      'job id "hero-mocha" is produced 2 times: by jobs[0] (colliding-ids.yaml:6:9) with product=mocha, style=flat and by jobs[0] (colliding-ids.yaml:6:9) with product=mocha, style=photo',
    ],
    [
      '10:9',
      'duplicate-id',
      'job id "hero-latte" is produced 3 times: by jobs[0] (colliding-ids.yaml:6:9) with product=latte, style=flat and by jobs[1] (colliding-ids.yaml:10:9) (and 1 more)',
    ],
  ],
  'deep-nesting.yaml': [['7:75', 'too-deep', 'the YAML is nested more than 64 levels deep']],
  'duplicate-key.yaml': [['7:5', 'duplicate-key', 'duplicate key "prompt": keys in a map must be unique']],
  'empty-file.yaml': [
    ['1:1', 'invalid-type', 'the manifest must be a map; received nothing (an empty value)'],
  ],
  'empty-jobs.yaml': [['3:7', 'no-jobs', 'jobs is empty: the manifest has nothing to run']],
  'empty-matrix-axis.yaml': [
    ['7:13', 'empty-matrix-axis', 'matrix axis "size" in jobs[0].matrix has no values'],
  ],
  'empty-matrix.yaml': [['6:13', 'empty-matrix', 'jobs[0].matrix is empty']],
  'exclude-unknown-axis.yaml': [
    [
      '9:13',
      'unknown-matrix-key',
      'exclude entry jobs[0].matrix.exclude[0] names "sise", which is not an axis of this matrix',
    ],
  ],
  'id-path-separator.yaml': [
    ['6:9', 'unsafe-id', 'jobs[0].id must be usable as a file name; received string "../escape"'],
    ['7:9', 'unsafe-id', 'jobs[1].id must be usable as a file name; received string "a\\\\b"'],
  ],
  'id-unsafe-after-expansion.yaml': [
    [
      '6:9',
      'unsafe-id',
      "job id \"shot-a/b\" cannot be used as a file name: it contains a path separator ('/' or '\\')",
    ],
    ['6:9', 'unsafe-id', 'job id "shot-.." cannot be used as a file name: it contains \'..\''],
  ],
  'matrix-explosion.yaml': [
    [
      '9:7',
      'too-many-jobs',
      'jobs[0] (id "x-{{ a }}-{{ b }}") expands to 16 jobs (4 a × 4 b), more than maxJobs 10',
    ],
  ],
  'missing-jobs.yaml': [['1:1', 'missing-key', 'the manifest is missing the required key "jobs"']],
  'missing-model.yaml': [
    ['4:5', 'missing-model', 'jobs[0] (id "a") names no model, and defaults.model is not set'],
  ],
  'multi-document.yaml': [
    [
      '7:1',
      'multiple-documents',
      'the file holds more than one YAML document (a second one starts here, after "---"); a manifest is a single document',
    ],
  ],
  'reserved-name.yaml': [
    ['4:3', 'reserved-name', '"date" in vars is reserved for the built-in {{ date }}'],
    ['9:7', 'reserved-name', '"env" in jobs[0].matrix is reserved for the built-in {{ env }}'],
  ],
  'syntax-error.yaml': [
    [
      '6:5',
      'yaml-syntax',
      'Flow sequence in block collection must be sufficiently indented and end with a ]',
    ],
  ],
  'template-syntax.yaml': [
    [
      '6:16',
      'template-syntax',
      'invalid template in jobs[0].prompt: "{{" at character 3 has no matching "}}"',
    ],
  ],
  'undefined-env-var.yaml': [
    [
      '7:16',
      'undefined-env-var',
      'environment variable "RUNNER_TEST_REGION" is not set; jobs[0].params.region of job "a" (jobs[0]) uses {{ env.RUNNER_TEST_REGION }}',
    ],
  ],
  'undefined-variable.yaml': [
    [
      '10:16',
      'undefined-variable',
      'undefined variable "prodcut" in jobs[0].prompt of job "hero-latte" (jobs[0], product=latte)',
    ],
  ],
  'unknown-job-key.yaml': [['6:5', 'unknown-key', 'unknown key "promt" in jobs[0]']],
  'unknown-top-level-key.yaml': [['3:1', 'unknown-key', 'unknown key "budjet" in the manifest']],
  'wrong-type.yaml': [
    ['3:9', 'invalid-type', 'budget must be a number; received string "lots"'],
    ['4:10', 'invalid-type', 'maxJobs must be an integer; received number 2.5'],
    ['8:13', 'invalid-type', 'jobs[0].prompt must be a string; received number 42'],
  ],
};

describe('invalid manifest fixtures', () => {
  const dir = `${FIXTURES}/invalid`;

  it('has an expectation for every fixture file', () => {
    expect(readdirSync(dir).sort()).toEqual(Object.keys(INVALID).sort());
  });

  it.each(Object.entries(INVALID))('%s', async (name, expected) => {
    const result = await validateManifestOffline(`${dir}/${name}`, context);
    expect(summarize(result.issues, dir)).toEqual(expected);
    expect(result.issues.every((issue) => issue.location?.file === `${dir}/${name}`)).toBe(true);
  });
});

describe('valid manifest fixtures', () => {
  const dir = `${FIXTURES}/valid`;
  it.each(readdirSync(dir))('%s has no issues', async (name) => {
    const result = await validateManifestOffline(`${dir}/${name}`, context);
    expect(result.issues).toEqual([]);
    expect(result.jobs.length).toBeGreaterThan(0);
  });
});

describe('the example manifest', () => {
  it('expands to the six jobs its matrix describes, with defaults merged', async () => {
    const result = await validateManifestOffline(`${FIXTURES}/valid/example.yaml`, context);
    expect(result.jobs.map((job) => job.id)).toEqual([
      'hero-latte-watercolor',
      'hero-latte-35mm photo',
      'hero-mocha-35mm photo',
      'hero-cold brew-watercolor',
      'hero-cold brew-35mm photo',
      'hero-espresso-watercolor',
    ]);
    expect(result.jobs[5]).toMatchObject({
      kind: 'image',
      model: 'chatgpt-image-sangtao',
      prompt: 'A watercolor advertisement of a espresso from Acme Coffee, shot 2026-11-21\n',
      params: { format: 'png', resolution: '1K', aspectRatio: '16:9' },
    });
    expect(result.loaded?.manifest.retry).toEqual({
      maxAttempts: 3,
      failureKinds: { GENERATION_TIMEOUT: 'retry' },
    });
  });
});

describe('generated hostile inputs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'runner-manifest-'));

  it('reports non-UTF-8 bytes with their offset and line', async () => {
    const head = 'version: 1\nname: x\njobs:\n  - id: caf';
    const file = join(dir, 'latin1.yaml');
    writeFileSync(
      file,
      Buffer.concat([Buffer.from(head), Buffer.from([0xe9]), Buffer.from('\n    model: m\n')]),
    );
    const result = await validateManifestOffline(file, context);
    expect(summarize(result.issues, dir)).toEqual([
      [
        '4:12',
        'invalid-encoding',
        `the file is not valid UTF-8: invalid byte 0xe9 at byte offset ${head.length} (line 4)`,
      ],
    ]);
  });

  it('reports a megabyte prompt as too long', async () => {
    const file = join(dir, 'huge-prompt.yaml');
    writeFileSync(
      file,
      `version: 1\nname: x\njobs:\n  - id: a\n    model: m\n    prompt: ${'a'.repeat(1024 * 1024)}\n`,
    );
    const result = await validateManifestOffline(file, context);
    expect(summarize(result.issues, dir)).toEqual([
      ['6:13', 'too-long', 'jobs[0].prompt is 1048576 characters long; the maximum is 32000'],
    ]);
  });

  it('refuses a file over 10 MB before parsing it', async () => {
    const file = join(dir, 'huge.yaml');
    writeFileSync(file, `# ${'x'.repeat(10 * 1024 * 1024)}\n`);
    const result = await validateManifestOffline(file, context);
    expect(summarize(result.issues, dir)).toEqual([
      ['1:1', 'file-too-large', 'the manifest is 10485763 bytes; the limit is 10485760 bytes'],
    ]);
  });

  it('reports a missing file', async () => {
    const file = join(dir, 'nope.yaml');
    const result = await validateManifestOffline(file, context);
    expect(result.issues.map((issue) => [issue.code, issue.message, issue.location])).toEqual([
      ['file-not-found', `manifest not found: ${file}`, undefined],
    ]);
  });

  it('survives 100,000 nested brackets without a crash', async () => {
    const source = `version: 1\nname: x\njobs: ${'['.repeat(100_000)}`;
    const result = await validateManifestOffline('deep.yaml', { ...context, source });
    expect(result.issues.map((issue) => issue.code)).toEqual(['too-deep']);
  });
});
