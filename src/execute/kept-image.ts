import { mkdtemp, open, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { PRIVATE_FILE_MODE } from '../file-modes.js';
import { keptImageFolderPrefix } from './kept-image-folders.js';

/** An image result larger than this is kept in a private file for its thumbnail, not in memory. */
export const KEPT_IMAGE_BYTES = 32 * 1024 * 1024;

/** What was kept of a stored image's bytes for its thumbnail: in memory, or in a private file. */
export type KeptImage = { body: Buffer } | { bodyFile: string };

/**
 * Keeps an image's bytes as they stream into a store that is not a folder of this machine (a bucket),
 * so its thumbnail is made from them and the object is never read back (a GET, egress where billed):
 * in memory up to {@link KEPT_IMAGE_BYTES}, past that (or when the content-length says it will be)
 * in a private file (mode 0600) of a private folder of this process (mkdtemp, 0700) under the
 * system's temporary folder, each chunk written before it is passed on, so memory stays flat whatever
 * the image's size. {@link discard} removes the folder; one keeper per download attempt. The folder
 * is named by this process and host, so that one a SIGKILL leaves is swept by the next apply
 * (`./kept-image-folders.ts`).
 */
export class ImageKeeper {
  private chunks: Buffer[] | undefined = [];
  private size = 0;
  private spill: { dir: string; file: string; handle: FileHandle | undefined } | undefined;
  private failed = false;

  constructor(private readonly sizeHint?: number) {}

  /** `body` as it is, each chunk kept before it is passed on. */
  async *pass(body: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
    try {
      if ((this.sizeHint ?? 0) > KEPT_IMAGE_BYTES) await this.spillToFile();
      for await (const chunk of body) {
        this.size += chunk.byteLength;
        if (this.spill === undefined && this.size > KEPT_IMAGE_BYTES) await this.spillToFile();
        if (this.spill?.handle !== undefined) await this.spill.handle.writeFile(chunk);
        else this.chunks?.push(Buffer.from(chunk));
        yield chunk;
      }
    } catch (error) {
      this.failed = true;
      throw error;
    } finally {
      await this.closeFile();
    }
  }

  /**
   * What was kept, once the store holds the body of `bytes` bytes: undefined when the keeper did not see
   * all of them (its folder is then removed). After a `bodyFile`, call {@link discard} when done.
   */
  async take(bytes: number): Promise<KeptImage | undefined> {
    await this.closeFile();
    if (this.failed || this.size !== bytes) {
      await this.discard();
      return undefined;
    }
    if (this.spill !== undefined) return { bodyFile: this.spill.file };
    const body = Buffer.concat(this.chunks ?? []);
    this.chunks = undefined;
    return { body };
  }

  /** Removes the private folder (and file), if any; the memory kept is let go. */
  async discard(): Promise<void> {
    this.chunks = undefined;
    await this.closeFile().catch(() => undefined);
    const spill = this.spill;
    this.spill = undefined;
    if (spill !== undefined) await rm(spill.dir, { recursive: true, force: true });
  }

  /** Moves what memory holds into a new private file; every later chunk goes there. */
  private async spillToFile(): Promise<void> {
    const dir = await mkdtemp(keptImageFolderPrefix());
    const file = join(dir, 'image');
    this.spill = { dir, file, handle: undefined };
    // 'wx': a new file (O_EXCL), in a folder only this user can enter.
    const handle = await open(file, 'wx', PRIVATE_FILE_MODE);
    this.spill.handle = handle;
    for (const chunk of this.chunks ?? []) await handle.writeFile(chunk);
    this.chunks = undefined;
  }

  private async closeFile(): Promise<void> {
    const spill = this.spill;
    if (spill?.handle === undefined) return;
    const { handle } = spill;
    spill.handle = undefined;
    await handle.close();
  }
}
