import { describe, expect, it } from 'vitest';
import {
  diffPayloads,
  diffPlanAgainstState,
  readLastPayloads,
  renderPlanDiff,
  snapshotPayload,
} from '../../../src/plan/payload-diff.js';
import { renderPayloadsText, collectPayloads } from '../../../src/plan/render-payloads.js';
import type { PlannedJob } from '../../../src/manifest/planned-job.js';
import { replayJournal } from '../../../src/state/replay.js';

const job = (id: string, prompt: string, params: Record<string, unknown>): PlannedJob => ({
  id,
  kind: 'image',
  model: 'm',
  prompt,
  params,
  estimatedCredits: 1,
  payloadHash: `h-${prompt}`,
  source: { matrixValues: {}, specIndex: 0, origins: { job: [], model: [], params: {} } },
});

describe('payload diffs (#10.2)', () => {
  it('lists changed, added and removed fields, params by name, keys in any order', () => {
    const before = snapshotPayload(job('a', 'old', { size: { w: 1, h: 2 }, dpi: 300, gone: true }));
    const after = snapshotPayload(job('a', 'new', { size: { h: 2, w: 1 }, dpi: 600, added: 'x' }));
    expect(diffPayloads(before, after)).toEqual([
      { field: 'prompt', change: '~', before: 'old', after: 'new' },
      { field: 'params.added', change: '+', after: 'x' },
      { field: 'params.dpi', change: '~', before: 300, after: 600 },
      { field: 'params.gone', change: '-', before: true },
    ]);
    expect(diffPayloads(before, before)).toEqual([]);
  });

  it('reads the last journaled payload per job and renders the diff Terraform style', () => {
    const journal = [
      JSON.stringify({ type: 'run', at: 1, runId: 'r', pipeline: 'p' }),
      JSON.stringify({
        type: 'intent',
        at: 2,
        id: 'a',
        attempt: 1,
        payloadHash: 'x',
        payload: snapshotPayload(job('a', 'v1', {})),
      }),
      JSON.stringify({
        type: 'intent',
        at: 3,
        id: 'a',
        attempt: 2,
        payloadHash: 'y',
        payload: snapshotPayload(job('a', 'v2', {})),
      }),
      JSON.stringify({
        type: 'intent',
        at: 4,
        id: 'b',
        attempt: 1,
        payloadHash: 'z',
        payload: snapshotPayload(job('b', 'same', {})),
      }),
      '{"torn',
    ].join('\n');
    const last = readLastPayloads(replayJournal(journal).jobs);
    expect(last.changedFrom('a', 'h-v3')?.prompt).toBe('v2');
    // Sent with the plan's payload already: nothing changed, so nothing is read.
    expect(last.changedFrom('a', 'y')).toBeUndefined();
    const diff = diffPlanAgainstState(
      [job('a', 'v3', { dpi: 1 }), job('b', 'same', {}), job('c', 'new', {})],
      last,
    );
    expect(renderPlanDiff(diff)).toEqual(['~ a', '    ~ prompt: "v2" → "v3"', '    + params.dpi: 1']);
  });

  it('renders payloads as text with values as JSON', () => {
    const text = renderPayloadsText(collectPayloads([job('a', 'line 1\nline 2', { ratio: '16:9', n: 2 })]));
    expect(text).toBe('# a (image, m)\nprompt: line 1\n        line 2\nparams:\n  ratio: "16:9"\n  n: 2\n');
  });
});
