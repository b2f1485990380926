import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openJournal } from '../../src/state/backends/folder/journal.js';
import { replayJournal } from '../../src/state/replay.js';
import { canMountTinyDisk, fillDisk, mountTinyDisk } from '../tiny-disk.js';

/** The journal on a disk that fills up mid-line (#24.3): a real tmpfs, where the test may mount one. */

let disk: { path: string; unmount(): void } | undefined;
afterEach(() => {
  disk?.unmount();
  disk = undefined;
});

describe.skipIf(!canMountTinyDisk)('a journal whose disk fills up mid-line', () => {
  it('cuts the torn part off, so a record appended once there is room again is read', async () => {
    disk = mountTinyDisk(32);
    const path = join(disk.path, 'journal.jsonl');
    const journal = await openJournal(path, { identity: { pipeline: 'p', runId: 'r' } });
    await journal.append({ type: 'intent', id: 'a', attempt: 1, payloadHash: 'h' });
    const filler = await fillDisk(disk.path, 'filler');
    // Longer than what is left of the journal's last page: part of it is written, then ENOSPC.
    const long = `https://results.test/${'x'.repeat(6000)}.png`;
    const failed = await journal
      .append({ type: 'completed', id: 'a', attempt: 1, resultUrls: [long] })
      .catch((error: unknown) => error);
    expect((failed as { code?: string }).code).toBe('ENOSPC');
    await rm(filler);
    await journal.append({ type: 'created', id: 'a', attempt: 1, jobId: 'J1' });
    await journal.close();
    const text = await readFile(path, 'utf8');
    expect(
      text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { type: string }),
    ).toEqual([
      expect.objectContaining({ type: 'journal' }),
      expect.objectContaining({ type: 'intent' }),
      expect.objectContaining({ type: 'created', jobId: 'J1' }),
    ]);
    expect(replayJournal(text).jobs.get('a')?.status).toBe('open');
  });
});
