import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFolderResultsStore } from '../../../src/results/backends/folder/folder-results-store.js';
import { holdsRecorded, isHeldHere } from '../../../src/results/held-here.js';
import { createResultFiles } from '../../../src/results/result-files.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'runner-held-here-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('is a recorded result held here', () => {
  it('holds it only with the same size and the same SHA-256', () => {
    const recorded = { bytes: 5, sha256: sha256('hello') };
    expect(holdsRecorded({ bytes: 5, sha256: sha256('hello') }, recorded)).toBe(true);
    expect(holdsRecorded(undefined, recorded)).toBe(false);
    expect(holdsRecorded({ bytes: 6, sha256: sha256('hello') }, recorded)).toBe(false);
    expect(holdsRecorded({ bytes: 5, sha256: sha256('world') }, recorded)).toBe(false);
  });

  it("looks the recorded file up by its key in this machine's store: present, missing, different", async () => {
    const files = createResultFiles(createFolderResultsStore(root), '/elsewhere/out');
    await writeFile(join(root, 'fox.png'), 'hello');
    const fox = { file: 'fox.png', bytes: 5, sha256: sha256('hello') };
    expect(await isHeldHere(files, fox)).toBe(true);
    // An earlier release's absolute path under the recorded folder is read as its key.
    expect(await isHeldHere(files, { ...fox, file: '/elsewhere/out/fox.png' })).toBe(true);
    expect(await isHeldHere(files, { ...fox, file: 'owl.png' })).toBe(false);
    await writeFile(join(root, 'fox.png'), 'hellO');
    expect(await isHeldHere(files, fox)).toBe(false);
  });
});
