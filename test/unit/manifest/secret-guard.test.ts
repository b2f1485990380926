import { describe, expect, it } from 'vitest';
import { expandJobs } from '../../../src/manifest/expand-jobs.js';
import { redactSecrets } from '../../../src/manifest/secret-guard.js';
import { REDACTED } from '../../../src/redacted.js';
import { context, loadInline } from './helpers.js';

const KEY = 'sk-live-0123456789abcdef';

describe('templates that read the API key (#11.4)', () => {
  it('refuses {{ env.MEDIAGEN_API_KEY }} with file:line:col, and creates no job of that entry', async () => {
    const loaded = await loadInline(`version: 1
name: s
jobs:
  - id: a
    model: m
    prompt: 'key is {{ env.MEDIAGEN_API_KEY }}'
  - { id: b, model: m, prompt: fine }
`);
    const env = { MEDIAGEN_API_KEY: KEY };
    const { jobs, issues } = expandJobs(loaded, { ...context, env, secrets: { values: [KEY] } });
    expect(jobs.map((job) => job.id)).toEqual(['b']);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({
      severity: 'error',
      code: 'secret-in-template',
      location: { file: 'inline.yaml', line: 6, col: 21 },
    });
    expect(JSON.stringify(issues)).not.toContain(KEY);
  });

  it('refuses it even when the key is not set, and refuses any variable holding the key', async () => {
    const loaded = await loadInline(`version: 1
name: s
jobs:
  - { id: a, model: m, prompt: 'x {{ env.MEDIAGEN_API_KEY }}' }
  - { id: 'b-{{ env.MY_ALIAS }}', model: m, prompt: 'y' }
  - { id: c, model: m, prompt: 'z {{ env.HOME_DIR }}' }
`);
    const env = { MY_ALIAS: KEY, HOME_DIR: '/home/me' };
    const { jobs, issues } = expandJobs(loaded, { ...context, env, secrets: { values: [KEY] } });
    expect(issues.map((issue) => [issue.code, issue.location?.line])).toEqual([
      ['secret-in-template', 4],
      ['secret-in-template', 5],
    ]);
    expect(jobs.map((job) => job.prompt)).toEqual(['z /home/me']);
  });

  it('redacts the key value arriving through vars and matrix values, with a warning', async () => {
    const loaded = await loadInline(`version: 1
name: s
vars: { k: '${KEY}' }
jobs:
  - id: 'a-{{ v }}'
    model: m
    matrix: { v: ['${KEY}', plain] }
    prompt: 'use {{ k }} now'
    params: { note: 'p-${KEY}', list: ['${KEY}'] }
`);
    const { jobs, issues } = expandJobs(loaded, { ...context, secrets: { values: [KEY] } });
    expect(JSON.stringify(jobs)).not.toContain(KEY);
    expect(jobs[0]).toMatchObject({
      id: `a-${REDACTED}`,
      prompt: `use ${REDACTED} now`,
      params: { note: `p-${REDACTED}`, list: [REDACTED] },
      matrixValues: { v: REDACTED },
    });
    expect(jobs[1]?.id).toBe('a-plain');
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ severity: 'warning', code: 'secret-redacted' });
    expect(issues[0]?.message).toContain('and 1 more');
  });

  it('leaves values alone when there is no secret, and ignores trivially short ones', () => {
    const value = { a: ['x'], b: 'y' };
    expect(redactSecrets(value, []).value).toBe(value);
    expect(redactSecrets(value, ['zzzzzz'])).toEqual({ value, redacted: false });
  });
});
