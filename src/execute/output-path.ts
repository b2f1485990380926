import { createHash } from 'node:crypto';
import { extname, resolve, sep } from 'node:path';
import type { JobKind } from '../kinds/types.js';
import { RunnerError } from '../errors.js';
import { sniffMediaExtension } from '../service/result-media.js';

const KNOWN_EXTENSIONS = new Set([
  '.png',
  '.jpg',
  '.jpeg',
  '.webp',
  '.gif',
  '.mp4',
  '.webm',
  '.mov',
  '.mp3',
  '.wav',
  '.m4a',
]);

/**
 * The file name of result `index` (0-based) of a job: `<id>.png`, `<id>+2.png`, ... The id is reduced
 * to `[A-Za-z0-9._-]` (never a leading dot); when that changed it, or the id has capitals, `~` and a
 * hash of the real id follow, so `a b` and `a_b` never share a file, nor `Hero` and `hero` on the
 * case-insensitive file systems of macOS and Windows. `+` and `~` never occur in a reduced id, so no job's name can
 * equal another job's second result either (`cat-2` vs the second image of `cat`). The extension comes
 * from the URL when it is a known media type, else from the content when it was sniffed, else from the
 * kind (png for images, mp4 for videos).
 */
export function buildOutputName(
  id: string,
  index: number,
  url: string,
  kind: JobKind,
  contentExtension?: string,
): string {
  const reduced =
    id
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .replace(/^\.+/, '_')
      .slice(0, 200) || 'job';
  const plain = reduced === id && id === id.toLowerCase();
  const base = plain ? id : `${reduced}~${createHash('sha256').update(id).digest('hex').slice(0, 8)}`;
  const suffix = index === 0 ? '' : `+${index + 1}`;
  return `${base}${suffix}${extensionFromUrl(url) ?? contentExtension ?? (kind === 'image' ? '.png' : '.mp4')}`;
}

/** The URL path's extension when it is a known media type (`.jpeg` as `.jpg`). */
export function extensionFromUrl(url: string): string | undefined {
  let pathname = '';
  try {
    pathname = new URL(url).pathname;
  } catch {
    return undefined;
  }
  const extension = extname(pathname).toLowerCase();
  if (!KNOWN_EXTENSIONS.has(extension)) return undefined;
  return extension === '.jpeg' ? '.jpg' : extension;
}

/** The extension the first bytes of a file show (magic numbers), when recognised. */
export const sniffExtension = sniffMediaExtension;

/** Resolves `name` inside `outputDir`, refusing any result outside it. */
export function resolveOutputPath(outputDir: string, name: string): string {
  const root = resolve(outputDir);
  const target = resolve(root, name);
  if (!target.startsWith(root + sep)) {
    throw new RunnerError('INTERNAL', `Refused to write "${name}" outside the output folder ${root}.`);
  }
  return target;
}
