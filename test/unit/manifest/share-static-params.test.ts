import { describe, expect, it } from 'vitest';
import { expandJobs, streamJobs } from '../../../src/manifest/expand-jobs.js';
import { context, loadInline } from './helpers.js';

const MANIFEST = `version: 1
name: shared
defaults: { model: m, params: { format: png } }
jobs:
  - id: 'a-{{ x }}'
    matrix: { x: [1, 2, 3] }
    prompt: 'a {{ x }}'
    params: { refs: [./one.png, ./two.png], size: { w: 2 } }
  - id: 'b-{{ x }}'
    matrix: { x: [1, 2] }
    prompt: 'b {{ x }}'
    params: { size: '{{ x }}' }
`;

describe('streamJobs with shareStaticParams', () => {
  it("gives the jobs of an entry whose params have no template one params object, equal to each job's own", async () => {
    const loaded = await loadInline(MANIFEST);
    const shared = [...streamJobs(loaded, { ...context, shareStaticParams: true }).jobs];
    const own = expandJobs(loaded, context).jobs;
    expect(shared).toEqual(own);
    const [a1, a2, a3, b1, b2] = shared;
    expect(a2!.params).toBe(a1!.params);
    expect(a3!.params).toBe(a1!.params);
    // A templated param is rendered per job, as without the option.
    expect(b2!.params).not.toBe(b1!.params);
    expect(b1!.params).toEqual({ format: 'png', size: '1' });
  });

  it('gives each job its own params without it (a consumer may change them)', async () => {
    const loaded = await loadInline(MANIFEST);
    const [a1, a2] = [...streamJobs(loaded, context).jobs];
    expect(a2!.params).not.toBe(a1!.params);
    expect(a2!.params.refs).not.toBe(a1!.params.refs);
  });
});
