import { describe, expect, it } from 'vitest';
import { expandJobs } from '../../../src/manifest/expand-jobs.js';
import { loadManifest } from '../../../src/manifest/load-manifest.js';
import { context, loadInline } from './helpers.js';

describe('GitHub Actions matrix compatibility (#10.5)', () => {
  it('accepts hyphenated keys, map values read with dots, and null values', async () => {
    const loaded = await loadInline(`version: 1
name: gh
jobs:
  - id: 'n{{ node-version }}-{{ os.name }}'
    model: m
    prompt: 'on {{ os.name }} ({{ os.arch }}) node {{ node-version }}[{{ extra }}] {{ os }}'
    matrix:
      node-version: [18, 20]
      os: [{ name: linux, arch: x64 }, { name: mac, arch: arm64 }]
      extra: [null]
      exclude:
        - { node-version: 18, os: { arch: arm64, name: mac } }
      include: null
`);
    const { jobs, issues } = expandJobs(loaded, context);
    expect(issues).toEqual([]);
    expect(jobs.map((job) => job.id)).toEqual(['n18-linux', 'n20-linux', 'n20-mac']);
    expect(jobs[0]?.prompt).toBe('on linux (x64) node 18[] {"arch":"x64","name":"linux"}');
    expect(jobs[0]?.matrixValues).toEqual({
      'node-version': 18,
      os: { name: 'linux', arch: 'x64' },
      extra: null,
    });
  });

  it('keeps a missing key of a map value an error, with a hint', async () => {
    const loaded = await loadInline(`version: 1
name: gh
jobs:
  - id: 'j-{{ os.name }}'
    model: m
    prompt: '{{ os.version }}'
    matrix: { os: [{ name: linux }] }
`);
    const { issues } = expandJobs(loaded, context);
    expect(issues).toMatchObject([{ code: 'undefined-variable', location: { line: 6 } }]);
  });

  it('still refuses keys that are not names', async () => {
    const { issues } = await loadManifest('bad.yaml', {
      source: `version: 1
name: gh
jobs:
  - id: j
    model: m
    matrix: { 'a b': [1] }
`,
    });
    expect(issues.some((issue) => issue.severity === 'error')).toBe(true);
  });
});

describe('schema errors outside jobs together with the jobs own errors (#10.5)', () => {
  const source = `version: 1
name: 'bad name!'
budget: -1
vars: { good: ok, bad: [1] }
jobs:
  - { id: 'a-{{ good }}-{{ missing }}', model: m }
  - { id: b, model: m, kind: nope }
`;

  it('reports the top-level errors, the broken entry and the template error of another job in one run', async () => {
    const { validateManifestOffline } = await import('../../../src/manifest/validate-manifest.js');
    const result = await validateManifestOffline('m.yaml', {
      ...context,
      source,
      checkJobsDespiteErrors: true,
    });
    const found = result.issues.map((issue) => [issue.code, issue.location?.line]);
    expect(found).toEqual(
      expect.arrayContaining([
        [expect.any(String), 2],
        [expect.any(String), 3],
        [expect.any(String), 4],
        ['undefined-variable', 6],
        [expect.any(String), 7],
      ]),
    );
    expect(result.jobs).toHaveLength(0);
  });

  it('stops at the schema without the option (status and other readers never see a broken manifest)', async () => {
    const { loaded } = await loadManifest('m.yaml', { source });
    expect(loaded).toBeUndefined();
  });
});
