import { describe, expect, it } from 'vitest';
import { replayJournal } from '../../../src/state/replay.js';
import { sharePlanStrings } from '../../../src/state/share-plan-strings.js';
import { plannedJob } from '../execute/executor-harness.js';

/** A journal in which `same` was sent as planned now, `changed` with another prompt, `gone` is not planned. */
function journal(hashOf: (id: string) => string): string {
  const intent = (id: string, prompt: string) => ({
    type: 'intent',
    at: 1,
    id,
    attempt: 1,
    payloadHash: hashOf(id),
    idempotencyKey: `rn-${id}`,
    payload: { kind: 'image', model: 'chatgpt-image-sangtao', prompt, params: {} },
  });
  return [
    intent('same', 'a clear prompt for same'),
    { type: 'created', at: 2, id: 'same', attempt: 1, jobId: 'J1', creditCost: 1 },
    intent('changed', 'the prompt it had before'),
    intent('gone', 'a job no longer planned'),
  ]
    .map((record) => JSON.stringify(record))
    .join('\n');
}

describe('sharePlanStrings', () => {
  it('changes no value of the state: a changed job keeps its journaled hash and prompt', () => {
    const plan = [plannedJob('same', 'a clear prompt for same'), plannedJob('changed', 'a new prompt')];
    const state = replayJournal(
      journal((id) => (id === 'changed' ? 'hash-of-the-old-prompt' : `hash-a clear prompt for ${id}`)),
    ).jobs;
    const before = structuredClone([...state]);
    sharePlanStrings(state, plan);
    expect([...state]).toEqual(before);
    expect(state.get('changed')?.attempts[0]?.payload?.prompt).toBe('the prompt it had before');
    expect(state.get('changed')?.payloadHash).toBe('hash-of-the-old-prompt');
  });
});
