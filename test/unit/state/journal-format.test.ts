import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { capString, MAX_LINE_BYTES, MAX_TEXT_BYTES } from '../../../src/state/journal-format.js';
import { openJournal } from '../../../src/state/backends/folder/journal.js';
import { readJournalLines } from '../../../src/state/backends/folder/read-journal.js';
import { replayJournal } from '../../../src/state/replay.js';
import { replayJournalFile } from '../../../src/state/backends/folder/replay-run-journal.js';

let dir: string;
let path: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'runner-journal-format-'));
  path = join(dir, 'journal.jsonl');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const clock = { now: () => 1000, sleep: () => Promise.resolve() };
const intent = (id: string) => JSON.stringify({ type: 'intent', at: 1, id, attempt: 1, payloadHash: 'h' });

describe('journal format version and identity (#11.7, #7.1)', () => {
  it('starts a new journal with a version-2 header naming its pipeline and run', async () => {
    const journal = await openJournal(path, { clock, identity: { pipeline: 'p', runId: 'r' } });
    await journal.append({ type: 'intent', id: 'a', attempt: 1, payloadHash: 'h' });
    await journal.close();
    const [first] = (await readFile(path, 'utf8')).split('\n');
    expect(JSON.parse(first ?? '')).toEqual({
      type: 'journal',
      at: 1000,
      version: 2,
      pipeline: 'p',
      runId: 'r',
    });
    const replay = await replayJournalFile(path);
    expect(replay.version).toBe(2);
    expect(replay.header).toEqual({ pipeline: 'p', runId: 'r', at: 1000 });
    expect(replay.jobs.get('a')?.status).toBe('creating');
    // Re-opening never writes a second header.
    await (await openJournal(path, { clock, identity: { pipeline: 'p', runId: 'r' } })).close();
    expect((await readFile(path, 'utf8')).match(/"type":"journal"/g)).toHaveLength(1);
  });

  it('reads a headerless journal of the first release as version 1', () => {
    const replay = replayJournal(`${intent('a')}\n`);
    expect(replay.version).toBe(1);
    expect(replay.header).toBeUndefined();
    expect(replay.jobs.get('a')?.status).toBe('creating');
  });

  it('refuses a journal of an unknown format version with a clear error', () => {
    const header = JSON.stringify({ type: 'journal', at: 1, version: 3, pipeline: 'p', runId: 'r' });
    expect(() => replayJournal(`${header}\n${intent('a')}\n`)).toThrow(
      expect.objectContaining({
        code: 'STATE_VERSION',
        message: expect.stringMatching(
          /format version 3 \(line 1\); this runner reads versions 1 to 2/,
        ) as unknown,
        hint: expect.stringMatching(/newer runner/) as unknown,
      }),
    );
  });

  it('ignores records of an unknown type with one warning per type, changing no job', () => {
    const text = [
      intent('a'),
      JSON.stringify({ type: 'teleported', at: 2, id: 'a', attempt: 1, status: 'done' }),
      JSON.stringify({ type: 'teleported', at: 3, id: 'b', attempt: 1 }),
      '',
    ].join('\n');
    const replay = replayJournal(text);
    expect(replay.jobs.get('a')?.status).toBe('creating');
    expect(replay.jobs.has('b')).toBe(false);
    expect(replay.warnings).toEqual([
      expect.stringMatching(
        /Ignored 2 state journal records of unknown type "teleported" \(first at line 2\)/,
      ),
    ]);
  });
});

describe('journal robustness against huge strings (#11.5)', () => {
  it('caps every string a record stores, noting how much was cut', async () => {
    const journal = await openJournal(path, { clock });
    const huge = 'E'.repeat(5_000_000);
    await journal.append({ type: 'intent', id: 'a', attempt: 1, payloadHash: 'h' });
    await journal.append({ type: 'created', id: 'a', attempt: 1, jobId: 'job-a' });
    await journal.append({
      type: 'failed',
      id: 'a',
      attempt: 1,
      failureKind: 'X',
      error: huge,
      willRetry: false,
    });
    await journal.close();
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
    expect(Buffer.byteLength(lines[2] ?? '')).toBeLessThan(MAX_TEXT_BYTES + 200);
    const error = replayJournal(lines.join('\n')).jobs.get('a')?.attempts[0]?.error ?? '';
    expect(error.startsWith('E'.repeat(MAX_TEXT_BYTES))).toBe(true);
    expect(error.endsWith(`…[truncated ${5_000_000 - MAX_TEXT_BYTES} bytes]`)).toBe(true);
  });

  it('never cuts a multi-byte character in two', () => {
    const capped = capString('é'.repeat(2000), 1001);
    expect(capped).toMatch(/^é{500}…\[truncated 3000 bytes\]$/);
    expect(capString('short', 10)).toBe('short');
  });

  it('skips an over-long line with a warning and keeps every record after it', async () => {
    const giant = JSON.stringify({
      type: 'failed',
      at: 2,
      id: 'a',
      attempt: 1,
      error: 'x'.repeat(3 * MAX_LINE_BYTES),
    });
    await writeFile(path, `${intent('a')}\n${giant}\n${intent('b')}\n`);
    const replay = await replayJournalFile(path);
    expect([...replay.jobs.keys()]).toEqual(['a', 'b']);
    expect(replay.jobs.get('a')?.status).toBe('creating');
    expect(replay.warnings).toEqual([
      expect.stringMatching(
        new RegExp(`Skipped line 2 of the state journal: ${Buffer.byteLength(giant)} bytes`),
      ),
    ]);
    // The text form applies the same limit.
    expect(replayJournal(await readFile(path, 'utf8')).warnings).toEqual(replay.warnings);
  });

  it('reads line by line without holding an over-long line, and reports a last line without newline', async () => {
    await writeFile(path, `${intent('a')}\n`);
    await appendFile(path, 'y'.repeat(300_000));
    await appendFile(path, `\n${intent('b')}`);
    const lines = [];
    for await (const line of readJournalLines(path, { maxLineBytes: 100_000 })) lines.push(line);
    expect(lines.map((line) => [line.number, line.text?.length, line.bytes, line.terminated])).toEqual([
      [1, intent('a').length, intent('a').length, true],
      [2, undefined, 300_000, true],
      [3, intent('b').length, intent('b').length, false],
    ]);
  });

  it('ends a huge unterminated last line on open instead of reading it whole', async () => {
    await writeFile(path, `${intent('a')}\n`);
    await appendFile(path, `{"type":"failed","error":"${'z'.repeat(MAX_LINE_BYTES + 10)}"}`);
    const journal = await openJournal(path, { clock });
    await journal.append({ type: 'intent', id: 'b', attempt: 1, payloadHash: 'h' });
    await journal.close();
    const replay = await replayJournalFile(path);
    expect([...replay.jobs.keys()]).toEqual(['a', 'b']);
    expect(replay.warnings).toEqual([expect.stringMatching(/Skipped line 2/)]);
  });

  it('replays a missing journal to nothing', async () => {
    const replay = await replayJournalFile(join(dir, 'none.jsonl'));
    expect(replay.jobs.size).toBe(0);
    expect(replay.warnings).toEqual([]);
  });
});
