import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Clock } from '../../../src/clock.js';
import { systemClock } from '../../../src/clock.js';
import { openRunState } from '../../../src/state/backends/folder/open-run-state.js';
import { readRunStart } from '../../../src/state/backends/folder/read-run-start.js';
import { resolveStateDir } from '../../../src/state/state-dir.js';
import { journalPathFor } from '../../../src/state/backends/folder/journal.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'runner-run-start-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const where = () => ({ manifestFile: join(dir, 'm.yaml'), pipeline: 'p', runId: 'r' });

describe('readRunStart (the date a resumed apply plans with, before the lock)', () => {
  it("reads the first run record's time, not a later apply's", async () => {
    let now = Date.UTC(2026, 10, 20, 23, 50);
    const clock: Clock = { ...systemClock, now: () => now };
    for (const pid of [1, 2]) {
      const state = await openRunState({ ...where(), clock });
      await state.journal.append({ type: 'run', runId: 'r', pipeline: 'p', pid, manifestFile: 'm.yaml' });
      await state.journal.append({ type: 'intent', id: 'a', attempt: pid, payloadHash: 'h' });
      await state.close();
      now += 86_400_000;
    }
    expect(await readRunStart(where())).toBe(Date.UTC(2026, 10, 20, 23, 50));
    // Another run of the same pipeline has no start yet.
    expect(await readRunStart({ ...where(), runId: 'other' })).toBeUndefined();
  });

  it('is undefined for a run whose journal has no run record, or a damaged first line', async () => {
    const journal = journalPathFor(resolveStateDir(where()));
    await mkdir(dirname(journal), { recursive: true });
    await writeFile(journal, '{"type":"journal","at":1,"version":2,"pipeline":"p","runId":"r"}\n');
    expect(await readRunStart(where())).toBeUndefined();
    await writeFile(journal, '{"type":"jour\n{"type":"run","at":5}\n');
    expect(await readRunStart(where())).toBe(5);
    await writeFile(journal, 'x'.repeat(10));
    expect(await readRunStart(where())).toBeUndefined();
  });
});
