import { describe, expect, it } from 'vitest';
import { expandJobs } from '../../../src/manifest/expand-jobs.js';
import { context, loadInline } from './helpers.js';

/** `line:col` of every issue, in order. */
async function positionsOf(source: string): Promise<string[]> {
  const { issues } = expandJobs(await loadInline(source), context);
  return issues.map((issue) => `${issue.location?.line}:${issue.location?.col} ${issue.code}`);
}

describe('template problems point at the {{ }} itself, not at the start of the value', () => {
  it('in a literal block prompt, names the line the variable is on', async () => {
    expect(
      await positionsOf(`version: 1
name: t
vars: { brand: Acme }
jobs:
  - id: a
    model: m
    prompt: |
      A long prompt about coffee in the morning.
      Made for {{ brand }} with love.
      Shot on {{ camera }} in warm light.
`),
    ).toEqual(['10:15 undefined-variable']);
  });

  it('in folded, plain, quoted and flow values, and in a param list item', async () => {
    expect(
      await positionsOf(`version: 1
name: t
jobs:
  - id: a
    model: m
    prompt: >-
      A long prompt about coffee
      in the {{ time }} light
  - { id: b, model: m, prompt: "say \\"hi\\" to {{ who }}" }
  - id: c
    model: m
    prompt: 'it''s {{ when }}'
    params: { refs: [x, 'y-{{ ref }}'] }
  - id: d
    model: m
    prompt: plain {{ bad name }} text
`),
    ).toEqual([
      '8:14 undefined-variable',
      '9:47 undefined-variable',
      '12:20 undefined-variable',
      '13:28 undefined-variable',
      '16:19 template-syntax',
    ]);
  });

  it('falls back to the start of the value when the value comes from an alias', async () => {
    expect(
      await positionsOf(`version: 1
name: t
jobs:
  - { id: a, model: m, prompt: &p "x {{ nope }}" }
  - { id: b, model: m, prompt: *p }
`),
    ).toEqual(['4:38 undefined-variable', '5:32 undefined-variable']);
  });
});
