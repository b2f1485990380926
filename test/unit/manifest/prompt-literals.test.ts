import { describe, expect, it } from 'vitest';
import { streamJobs } from '../../../src/manifest/expand-jobs.js';
import { context, loadInline } from './helpers.js';

describe('JobStream.promptLiterals', () => {
  const manifest = `version: 1
name: literals
vars: { brand: Acme }
defaults: { model: m }
jobs:
  - id: 'a-{{ p }}'
    matrix: { p: [one, two] }
    prompt: 'A picture of {{ p }} from {{ brand }}, #{{ index }}'
  - id: b
    prompt: 'A fixed prompt'
  - id: c
`;

  it("gives each entry's literal prompt text, its constants written in, once the entry is expanded", async () => {
    const stream = streamJobs(await loadInline(manifest), context);
    expect(stream.promptLiterals(0)).toBeUndefined();
    const jobs = [...stream.jobs];
    expect(jobs.map((job) => job.prompt)).toEqual([
      'A picture of one from Acme, #0',
      'A picture of two from Acme, #1',
      'A fixed prompt',
      undefined,
    ]);
    expect(stream.promptLiterals(0)).toEqual(['A picture of ', ' from Acme, #']);
    expect(stream.promptLiterals(1)).toEqual(['A fixed prompt']);
    expect(stream.promptLiterals(2)).toBeUndefined();
  });

  it('gives none when a key may be redacted from the prompts', async () => {
    const stream = streamJobs(await loadInline(manifest), {
      ...context,
      secrets: { values: ['sk-0123456789'] },
    });
    expect([...stream.jobs]).toHaveLength(4);
    expect(stream.promptLiterals(0)).toBeUndefined();
    expect(stream.promptLiterals(1)).toBeUndefined();
  });
});
