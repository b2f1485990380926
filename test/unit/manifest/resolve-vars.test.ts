import { describe, expect, it } from 'vitest';
import { expandJobs } from '../../../src/manifest/expand-jobs.js';
import { parseVarFile } from '../../../src/manifest/parse-var-file.js';
import type { VarOverride } from '../../../src/manifest/resolve-vars.js';
import { context, loadInline } from './helpers.js';

const manifest = `version: 1
name: v
vars:
  greeting: 'Hello {{ who }} from {{ city }}'
  who: '{{ env.USER_NAME }}'
  city: Hanoi
jobs:
  - { id: a, model: m, prompt: '{{ greeting }} on {{ date }}' }
`;

const cli = (value: string): VarOverride => ({ value, origin: { flag: '--var' } });

describe('vars with templates and overrides (#10.4)', () => {
  it('renders vars that use other vars (in any order), env.NAME and date', async () => {
    const loaded = await loadInline(manifest);
    const { jobs, issues } = expandJobs(loaded, { ...context, env: { USER_NAME: 'Lan' } });
    expect(issues).toEqual([]);
    expect(jobs[0]?.prompt).toBe('Hello Lan from Hanoi on 2026-11-21');
  });

  it('lets --var win over --var-file and the manifest, and feeds overrides into templates', async () => {
    const loaded = await loadInline(manifest);
    const file = parseVarFile('city: Hue\nwho: Minh\n', 'vars.yaml');
    expect(file.issues).toEqual([]);
    const overrides = new Map([...file.overrides, ['city', cli('Da Nang')]]);
    const { jobs, issues } = expandJobs(loaded, { ...context, varOverrides: overrides });
    expect(issues).toEqual([]);
    expect(jobs[0]?.prompt).toBe('Hello Minh from Da Nang on 2026-11-21');
  });

  it('keeps undefined names errors, at the var, and reports cycles and undeclared --var names', async () => {
    const loaded = await loadInline(`version: 1
name: v
vars:
  a: '{{ b }}'
  b: '{{ a }}'
  c: '{{ nope }}'
  d: '{{ env.MISSING_ONE }}'
jobs:
  - { id: j, model: m, prompt: '{{ c }}' }
`);
    const { issues } = expandJobs(loaded, { ...context, varOverrides: new Map([['brnd', cli('x')]]) });
    expect(issues.map((issue) => [issue.code, issue.location?.line])).toEqual([
      ['undeclared-var', undefined],
      ['var-cycle', 4],
      ['undefined-variable', 6],
      ['undefined-env-var', 7],
    ]);
    expect(issues[1]?.message).toContain('a → b → a');
  });

  it('refuses a var that reads the API key', async () => {
    const loaded = await loadInline(`version: 1
name: v
vars: { k: '{{ env.MEDIAGEN_API_KEY }}' }
jobs:
  - { id: j, model: m, prompt: 'p' }
`);
    const { issues } = expandJobs(loaded, { ...context, env: { MEDIAGEN_API_KEY: 'secret-value-1' } });
    expect(issues.map((issue) => issue.code)).toEqual(['secret-in-template']);
  });

  it('reports bad var files with file:line:col', () => {
    const { issues } = parseVarFile('ok: 1\nlist: [1, 2]\n"bad name": x\n', 'v.yaml');
    expect(issues.map((issue) => [issue.code, issue.location?.line])).toEqual([
      ['wrong-type', 2],
      ['invalid-var-name', 3],
    ]);
  });
});
