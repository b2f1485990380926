import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { appendFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openJournal } from '../../../src/state/backends/folder/journal.js';
import { replayJournal } from '../../../src/state/replay.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'runner-journal-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const clock = { now: () => 1000, sleep: () => Promise.resolve() };

describe('openJournal', () => {
  it('appends one line per record in call order, stamped with the clock, mode 0600', async () => {
    const path = join(dir, 'journal.jsonl');
    const journal = await openJournal(path, { clock });
    await Promise.all([
      journal.append({ type: 'intent', id: 'a', attempt: 1, payloadHash: 'h' }),
      journal.append({ type: 'created', id: 'a', attempt: 1, jobId: 'J' }),
      journal.append({ type: 'interrupted', at: 5 }),
    ]);
    await journal.close();
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual([
      { type: 'intent', id: 'a', attempt: 1, payloadHash: 'h', at: 1000 },
      { type: 'created', id: 'a', attempt: 1, jobId: 'J', at: 1000 },
      { type: 'interrupted', at: 5 },
    ]);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('cuts a torn last line so the next record starts on its own line', async () => {
    const path = join(dir, 'journal.jsonl');
    await writeFile(path, '{"type":"intent","at":1,"id":"a","attempt":1,"payloadHash":"h"}\n{"type":"crea');
    const journal = await openJournal(path, { clock });
    await journal.append({ type: 'intent', id: 'b', attempt: 1, payloadHash: 'h' });
    await journal.close();
    const { jobs, warnings } = replayJournal(await readFile(path, 'utf8'));
    expect(warnings).toEqual([]);
    expect([...jobs.keys()]).toEqual(['a', 'b']);
  });

  it('keeps a complete last record that only lacks its newline', async () => {
    const path = join(dir, 'journal.jsonl');
    await writeFile(path, '{"type":"intent","at":1,"id":"a","attempt":1,"payloadHash":"h"}');
    const journal = await openJournal(path, { clock });
    await journal.append({ type: 'created', id: 'a', attempt: 1, jobId: 'J' });
    await journal.close();
    expect(replayJournal(await readFile(path, 'utf8')).jobs.get('a')?.status).toBe('open');
  });

  it('repairs a torn line longer than its tail buffer', async () => {
    const path = join(dir, 'journal.jsonl');
    await writeFile(path, '{"type":"interrupted","at":1}\n');
    await appendFile(path, `{"type":"intent","x":"${'y'.repeat(200_000)}`);
    const journal = await openJournal(path, { clock });
    await journal.close();
    expect(await readFile(path, 'utf8')).toBe('{"type":"interrupted","at":1}\n');
  });
});
