import { describe, expect, it } from 'vitest';
import { expandJobs } from '../../../src/manifest/expand-jobs.js';
import { replayJobs } from '../../../src/manifest/replay-jobs.js';
import { context, loadInline } from './helpers.js';

/**
 * Names that read the same for every job of an entry (vars, `date`, `env.*`, `job.kind`) are written
 * into its templates once (`bindEntryConstants`); a matrix key of the same name must still win, in
 * exactly the combinations that have it.
 */
describe('names bound once per job entry', () => {
  const manifest = `version: 1
name: bind
vars:
  style: plain
  brand: Acme
jobs:
  - id: "{{ p }}-{{ index }}"
    model: m
    prompt: "{{ brand }} {{ p }} in {{ style }} on {{ date }} by {{ env.WHO }}, {{ job.kind }} of {{ job.model }}"
    matrix:
      p: [latte, mocha]
      include: [{ p: mocha, style: bold }]
  - id: "plain-{{ style }}"
    model: m
    prompt: "{{ brand }} {{ style }} on {{ date }}"
`;
  const env = { ...context, env: { WHO: 'ann' } };

  it('gives each job the text the resolver gives it, combination by combination', async () => {
    const loaded = await loadInline(manifest);
    const { jobs, issues } = expandJobs(loaded, env);
    expect(issues).toEqual([]);
    expect(jobs.map((job) => [job.id, job.prompt])).toEqual([
      ['latte-0', 'Acme latte in plain on 2026-11-21 by ann, image of m'],
      ['mocha-1', 'Acme mocha in bold on 2026-11-21 by ann, image of m'],
      ['plain-plain', 'Acme plain on 2026-11-21'],
    ]);
    expect([...replayJobs(loaded, env)].map((job) => [job.id, job.prompt])).toEqual(
      jobs.map((job) => [job.id, job.prompt]),
    );
  });

  it('still reports an undefined name per job, with its place in the template', async () => {
    const loaded = await loadInline(manifest.replace('{{ env.WHO }}', '{{ nobody }}'));
    const { jobs, issues } = expandJobs(loaded, env);
    expect(jobs.map((job) => job.id)).toEqual(['plain-plain']);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ code: 'undefined-variable', location: { line: 9 } });
  });
});
