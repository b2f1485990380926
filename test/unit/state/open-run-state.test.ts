import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRunState } from '../../../src/state/backends/folder/open-run-state.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'runner-state-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('openRunState', () => {
  it('creates a locked 0700 state dir, journals, and replays on the next open', async () => {
    const manifestFile = join(dir, 'm.yaml');
    const first = await openRunState({ manifestFile, pipeline: 'demo', runId: 'r1' });
    expect(first.dir).toBe(join(dir, '.runner', 'demo', 'r1'));
    expect((await stat(first.dir)).mode & 0o777).toBe(0o700);
    await expect(openRunState({ manifestFile, pipeline: 'demo', runId: 'r1' })).rejects.toMatchObject({
      code: 'STATE_LOCKED',
    });
    await first.journal.append({ type: 'intent', id: 'a', attempt: 1, payloadHash: 'h' });
    await first.uploadCache.set('sha', 'https://blob/x');
    await first.close();
    expect(existsSync(join(first.dir, 'lock'))).toBe(false);

    await writeFile(
      join(first.dir, 'journal.jsonl'),
      '{"type":"intent","at":1,"id":"a","attempt":1,"payloadHash":"h"}\n{"ty',
      { flag: 'w' },
    );
    const second = await openRunState({ manifestFile, pipeline: 'demo', runId: 'r1' });
    expect(second.jobs.get('a')?.status).toBe('creating');
    expect(second.warnings).toEqual([expect.stringMatching(/torn last line/)]);
    expect(second.uploadCache.get('sha')).toBe('https://blob/x');
    await second.close();
  });
});
