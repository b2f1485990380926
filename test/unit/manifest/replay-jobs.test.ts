import { describe, expect, it } from 'vitest';
import { replayJobs, streamJobs } from '../../../src/manifest/expand-jobs.js';
import { context, loadInline } from './helpers.js';

const KEY = 'sk-live-0123456789abcdef';

describe('replayJobs', () => {
  it('gives the jobs streamJobs gave, in its order, as often as it is read, indexing none', async () => {
    // Excluded and failing combinations, {{ index }}, {{ date }}, env, a redacted key, a duplicated id.
    const loaded = await loadInline(`version: 1
name: again
vars: { brand: Acme }
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
  - id: a-1-p
    prompt: a duplicate
`);
    const expandContext = { ...context, env: { WHO: 'you' }, secrets: { values: [KEY] } };
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
      'a-1-p',
    ]);
    expect(stream.issues.map((issue) => issue.code)).toContain('duplicate-id');

    const again = replayJobs(loaded, expandContext);
    expect([...again]).toEqual(first);
    expect([...again]).toEqual(first);
    const unindexed = streamJobs(loaded, expandContext, false);
    expect([...unindexed.jobs]).toEqual(first);
    expect(unindexed.index.size).toBe(0);
    expect(unindexed.issues.map((issue) => issue.code)).not.toContain('duplicate-id');
  });
});
