import { describe, expect, it } from 'vitest';
import { expandJobs } from '../../../src/manifest/expand-jobs.js';
import { context, loadInline } from './helpers.js';

describe('expandJobs', () => {
  it('merges defaults under each job and records where every param came from', async () => {
    const loaded = await loadInline(`version: 1
name: merge
defaults:
  model: default-model
  kind: render-video
  params: { format: png, resolution: 1K }
jobs:
  - id: a
    params: { resolution: 2K, extra: [1, { deep: true }] }
  - id: b
    model: own-model
    kind: image
`);
    const { jobs, issues } = expandJobs(loaded, context);
    expect(issues).toEqual([]);
    expect(jobs[0]).toEqual({
      id: 'a',
      kind: 'render-video',
      model: 'default-model',
      params: { format: 'png', resolution: '2K', extra: [1, { deep: true }] },
      matrixValues: {},
      specIndex: 0,
      origins: {
        job: ['jobs', 0],
        model: ['defaults', 'model'],
        params: {
          format: ['defaults', 'params', 'format'],
          resolution: ['jobs', 0, 'params', 'resolution'],
          extra: ['jobs', 0, 'params', 'extra'],
        },
      },
    });
    expect(jobs[1]).toMatchObject({
      id: 'b',
      kind: 'image',
      model: 'own-model',
      origins: { model: ['jobs', 1, 'model'] },
    });
    expect(jobs[0]!.params).not.toBe(jobs[1]!.params);
  });

  it("gives a job with no kind anywhere the kind 'image'", async () => {
    const loaded = await loadInline('version: 1\nname: k\njobs:\n  - { id: a, model: m }\n');
    expect(expandJobs(loaded, context).jobs[0]?.kind).toBe('image');
  });

  it('renders templates in id, model, prompt and nested params with the built-ins', async () => {
    const loaded = await loadInline(`version: 1
name: tpl
vars: { brand: Acme, size: 3 }
jobs:
  - id: "{{ flavor }}-{{ index }}"
    model: "model-{{ tier }}"
    kind: stock-video
    matrix:
      flavor: [latte, mocha]
      tier: [a]
    prompt: "{{ brand }} {{ flavor }} {{ date }} {{ job.kind }} {{ job.model }} {{ env.REGION }} {{ size }}"
    params:
      refs: ["./{{ flavor }}.png", { caption: "{{ brand }}" }]
`);
    const { jobs, issues } = expandJobs(loaded, { ...context, env: { REGION: 'eu' } });
    expect(issues).toEqual([]);
    expect(jobs.map((job) => [job.id, job.model, job.prompt, job.params])).toEqual([
      [
        'latte-0',
        'model-a',
        'Acme latte 2026-11-21 stock-video model-a eu 3',
        { refs: ['./latte.png', { caption: 'Acme' }] },
      ],
      [
        'mocha-1',
        'model-a',
        'Acme mocha 2026-11-21 stock-video model-a eu 3',
        { refs: ['./mocha.png', { caption: 'Acme' }] },
      ],
    ]);
    expect(jobs[0]?.matrixValues).toEqual({ flavor: 'latte', tier: 'a' });
  });

  it('lets matrix values win over vars of the same name', async () => {
    const loaded = await loadInline(`version: 1
name: shadow
vars: { flavor: plain }
jobs:
  - { id: "x-{{ flavor }}", model: m, matrix: { flavor: [latte] } }
`);
    expect(expandJobs(loaded, context).jobs.map((job) => job.id)).toEqual(['x-latte']);
  });

  it('reports an undefined variable once per place, not once per matrix job', async () => {
    const loaded = await loadInline(`version: 1
name: once
jobs:
  - id: "x-{{ n }}"
    model: m
    matrix: { n: [1, 2, 3, 4, 5] }
    prompt: "{{ nn }} and {{ env.MISSING }}"
`);
    const { jobs, issues } = expandJobs(loaded, context);
    expect(jobs).toEqual([]);
    expect(issues.map((issue) => [issue.code, issue.jobId, issue.hint])).toEqual([
      ['undefined-variable', 'x-1', 'did you mean "n"?'],
      ['undefined-env-var', 'x-1', 'set MISSING in the environment before running'],
    ]);
  });

  it('points an undefined variable inside defaults.params at its nested place', async () => {
    const loaded = await loadInline(`version: 1
name: nested
defaults:
  model: m
  params:
    refs:
      - ok
      - "{{ nope }}"
jobs:
  - id: a
`);
    const [issue] = expandJobs(loaded, context).issues;
    expect(issue).toMatchObject({
      code: 'undefined-variable',
      message: 'undefined variable "nope" in defaults.params.refs[1] of job "a" (jobs[0])',
      location: { file: 'inline.yaml', line: 8, col: 10 },
    });
  });

  it('lets the command-line maxJobs win over the manifest', async () => {
    const loaded = await loadInline(`version: 1
name: guard
maxJobs: 2
jobs:
  - { id: "x-{{ n }}", model: m, matrix: { n: [1, 2, 3] } }
`);
    expect(expandJobs(loaded, context).issues.map((issue) => issue.code)).toEqual(['too-many-jobs']);
    expect(expandJobs(loaded, { ...context, maxJobs: 3 }).issues).toEqual([]);
  });

  it('guards the total across entries when no single entry is too big', async () => {
    const loaded = await loadInline(`version: 1
name: guard
maxJobs: 4
jobs:
  - { id: "x-{{ n }}", model: m, matrix: { n: [1, 2, 3] } }
  - { id: "y-{{ n }}", model: m, matrix: { n: [1, 2] } }
`);
    expect(expandJobs(loaded, context).issues).toEqual([
      {
        severity: 'error',
        code: 'too-many-jobs',
        message: 'the manifest expands to up to 5 jobs, more than maxJobs 4',
        location: { file: 'inline.yaml', line: 5, col: 3 },
        hint: 'narrow the matrix, or raise maxJobs in the manifest or with --max-jobs if this is intended',
      },
    ]);
  });

  it('refuses a huge matrix without expanding it', async () => {
    const values = `[${Array.from({ length: 10_000 }, (_, i) => i).join(',')}]`;
    const loaded = await loadInline(`version: 1
name: huge
jobs:
  - { id: "x-{{ a }}-{{ b }}-{{ c }}", model: m, matrix: { a: ${values}, b: ${values}, c: ${values} } }
`);
    const { jobs, issues } = expandJobs(loaded, context);
    // #33.10: only a sample of maxJobs jobs is expanded, for the other checks to see.
    expect(jobs).toHaveLength(1000);
    expect(issues[0]?.message).toBe(
      'jobs[0] (id "x-{{ a }}-{{ b }}-{{ c }}") expands to 1000000000000 jobs (10000 a × 10000 b × 10000 c), more than maxJobs 1000',
    );
  });

  it('reports the other mistakes of a manifest whose matrix explodes, all at once (#33.10)', async () => {
    const loaded = await loadInline(`version: 1
name: explode
maxJobs: 10
jobs:
  - id: "x-{{ a }}-{{ b }}"
    model: m
    prompt: "a {{ colour }} cat"
    matrix: { a: [1, 2, 3, 4], b: [1, 2, 3, 4] }
  - { id: "y-{{ p }}", model: m, matrix: { p: ["a/b"] } }
`);
    const { jobs, issues } = expandJobs(loaded, context);
    expect(issues.map((issue) => issue.code).sort()).toEqual([
      'too-many-jobs',
      'undefined-variable',
      'unsafe-id',
    ]);
    expect(jobs.length).toBeLessThanOrEqual(10);
  });

  it('warns when exclude removes every combination', async () => {
    const loaded = await loadInline(`version: 1
name: none
jobs:
  - { id: "x-{{ n }}", model: m, matrix: { n: [1], exclude: [{ n: 1 }] } }
`);
    expect(expandJobs(loaded, context).issues.map((issue) => [issue.severity, issue.code])).toEqual([
      ['warning', 'empty-matrix-result'],
    ]);
  });

  it('checks the rendered prompt length', async () => {
    const loaded = await loadInline(`version: 1
name: long
vars: { big: "${'x'.repeat(20_000)}" }
jobs:
  - { id: a, model: m, prompt: "{{ big }}{{ big }}" }
`);
    expect(expandJobs(loaded, context).issues).toMatchObject([
      {
        code: 'too-long',
        jobId: 'a',
        message: 'the rendered prompt is 40000 characters long; the maximum is 32000',
      },
    ]);
  });

  it('rejects an id that is empty after expansion', async () => {
    const loaded = await loadInline(`version: 1
name: empty
vars: { blank: "" }
jobs:
  - { id: "{{ blank }}", model: m }
`);
    expect(expandJobs(loaded, context).issues).toMatchObject([
      { code: 'unsafe-id', message: 'job id "" cannot be used as a file name: it is empty' },
    ]);
  });

  it('reports an unsafe id once per job entry and reason, with a count', async () => {
    const loaded = await loadInline(`version: 1
name: grouped
vars: { dir: "a/b" }
jobs:
  - { id: "{{ dir }}-{{ n }}", model: m, matrix: { n: [1, 2, 3] } }
`);
    expect(expandJobs(loaded, context).issues).toEqual([
      {
        severity: 'error',
        code: 'unsafe-id',
        message: `job id "a/b-1" cannot be used as a file name: it contains a path separator ('/' or '\\') (and 2 more jobs of jobs[0] alike)`,
        jobId: 'a/b-1',
        location: { file: 'inline.yaml', line: 5, col: 11 },
        hint: "job ids name download files and state entries; use letters, digits, '-', '_' and '.'",
      },
    ]);
  });

  it('expands 100,000 jobs (a 100 × 1000 matrix)', async () => {
    const axis = (n: number): string => `[${Array.from({ length: n }, (_, i) => i).join(',')}]`;
    const loaded = await loadInline(`version: 1
name: big
maxJobs: 100000
defaults: { model: m, params: { format: png, ref: "./{{ a }}.png" } }
jobs:
  - id: "job-{{ a }}-{{ b }}"
    prompt: "A {{ a }} and a {{ b }}"
    matrix: { a: ${axis(100)}, b: ${axis(1000)} }
`);
    const { jobs, issues } = expandJobs(loaded, context);
    expect(issues).toEqual([]);
    expect(jobs).toHaveLength(100_000);
    expect(new Set(jobs.map((job) => job.id)).size).toBe(100_000);
    expect(jobs[99_999]).toMatchObject({
      id: 'job-99-999',
      prompt: 'A 99 and a 999',
      params: { ref: './99.png' },
    });
  });
});
