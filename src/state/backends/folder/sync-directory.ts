import { open } from 'node:fs/promises';

/** Makes a new file's directory entry (a journal's, a snapshot's, a late record's) durable too (best effort: not every platform can fsync a directory). */
export async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Windows cannot open a directory; the file's own fsyncs still hold.
  }
}
