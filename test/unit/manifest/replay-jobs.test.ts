import { describe, expect, it } from 'vitest';
import { streamJobs } from '../../../src/manifest/expand-jobs.js';
import { replayJobs } from '../../../src/manifest/replay-jobs.js';
import { context, loadInline } from './helpers.js';

const KEY = 'sk-live-0123456789abcdef';

describe('replayJobs', () => {
  it("gives the ids, prompts and matrix values of streamJobs' jobs, in its order, as often as it is read", async () => {
    // Excluded and failing combinations (a prompt's or a param's undefined name, an unsafe id, a prompt
    // too long), {{ index }}, {{ date }}, env, a redacted key, a duplicated id.
    const loaded = await loadInline(`version: 1
name: again
vars: { brand: Acme, long: ${'x'.repeat(40_000)} }
defaults: { model: m, params: { format: png } }
jobs:
  - id: 'a-{{ x }}-{{ y }}'
    matrix:
      x: [1, 2, 3]
      y: [p, q]
      exclude: [{ x: 2, y: q }]
    prompt: '{{ brand }} {{ x }} {{ y }} #{{ index }} on {{ date }} for {{ env.WHO }}'
    params: { size: '{{ x }}' }
  - id: 'b-{{ k }}'
    matrix: { k: [ok, '${KEY}'] }
    prompt: 'key {{ k }}'
  - id: 'c-{{ x }}'
    matrix: { x: [1, 2] }
    prompt: '{{ missing }}'
  - id: 'd-{{ x }}'
    matrix: { x: [1, 2] }
    prompt: 'fine'
    params: { size: '{{ x }}', style: '{{ nope }}' }
  - id: 'e{{ x }}'
    matrix: { x: ['1', '/2'] }
    prompt: 'e {{ x }}'
  - id: f
    prompt: '{{ long }}'
  - id: a-1-p
    prompt: a duplicate
`);
    const expandContext = {
      ...context,
      env: { WHO: 'you' },
      secrets: { values: [KEY] },
    };
    const stream = streamJobs(loaded, expandContext);
    const first = [...stream.jobs];
    expect(first.map((job) => job.id)).toEqual([
      'a-1-p',
      'a-1-q',
      'a-2-p',
      'a-3-p',
      'a-3-q',
      'b-ok',
      'b-[REDACTED]',
      'e1',
      'a-1-p',
    ]);
    expect(stream.issues.map((issue) => issue.code)).toContain('duplicate-id');

    const expected = first.map(({ id, prompt, matrixValues }) => ({ id, prompt, matrixValues }));
    const again = replayJobs(loaded, expandContext);
    expect([...again]).toEqual(expected);
    expect([...again]).toEqual(expected);
  });

  it("gives a prompt's JSON when nothing in it needs escaping, and JSON.stringify's text when it does", async () => {
    const loaded = await loadInline(`version: 1
name: json
vars: { brand: 'Acme "Coffee"', shop: Acme }
defaults: { model: m }
jobs:
  - id: 'a-{{ index }}'
    matrix: { p: [plain, 'q"uote', 'back\\slash', "tab\\there", "emoji\\ud83d\\ude00", "\\ud83d", "x\\u2028y"] }
    prompt: 'A picture of {{ p }} from {{ shop }}'
  - id: 'b-{{ p }}'
    matrix: { p: [one] }
    prompt: 'A picture of {{ p }} from {{ brand }}'
  - id: 'c-{{ index }}'
    matrix: { p: ["\\ud83d", "\\ude00"] }
    prompt: "halves {{ p }}{{ p }}"
`);
    const replayed = [...replayJobs(loaded, context)];
    expect(replayed).toHaveLength(10);
    for (const job of replayed) {
      if (job.promptJson !== undefined) expect(job.promptJson).toBe(JSON.stringify(job.prompt));
    }
    expect(replayed.filter((job) => job.promptJson !== undefined).map((job) => job.id)).toEqual([
      'a-0',
      'a-6',
    ]);
  });
});
