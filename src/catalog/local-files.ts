import { resolve } from 'node:path';
import type { LocalFileRef } from '../manifest/types.js';

/** Local files larger than this are refused (the service's upload is for reference images). */
export const DEFAULT_MAX_LOCAL_FILE_BYTES = 20 * 1024 * 1024;

/**
 * What the injected reader knows about a path. `undefined` from the reader means "does not exist".
 * Produced by {@link createFileInfoReader} (`read-file-info.ts`) or by a test double.
 */
export interface LocalFileInfo {
  isFile: boolean;
  bytes: number;
  /** Hex SHA-256 of the content; absent for non-files and for files too large to read. */
  sha256?: string;
  /** Image MIME type sniffed from magic bytes; absent when the content is not a known image. */
  contentType?: string;
}

/** Reads facts about an absolute path; `undefined` when nothing exists there. */
export type FileInfoReader = (absPath: string) => LocalFileInfo | undefined;

/** Why a local file cannot be used; becomes a `ValidationIssue` code. */
export type LocalFileProblem =
  | { code: 'unsupported-url-scheme'; message: string }
  | { code: 'local-file-missing'; message: string }
  | { code: 'local-file-not-a-file'; message: string }
  | { code: 'local-file-too-large'; message: string }
  | { code: 'local-file-not-image'; message: string };

const URL_PATTERN = /^https?:\/\//i;
/** `ftp://…`, `s3://…`, `data:…`: a link, but not one the service fetches (spec 4.3: http:// or https://). */
const OTHER_SCHEME_PATTERN = /^[a-z][a-z0-9+.-]*:(\/\/|(?![\\/]))/i;

/** A param value is a remote link when it starts with `http://` or `https://`; anything else is a path. */
export function isRemoteUrl(value: string): boolean {
  return URL_PATTERN.test(value);
}

/** Type guard for {@link LocalFileRef} values inside planned params. */
export function isLocalFileRef(value: unknown): value is LocalFileRef {
  if (typeof value !== 'object' || value === null) return false;
  const ref = value as Partial<Record<keyof LocalFileRef, unknown>>;
  return (
    typeof ref.localFile === 'string' &&
    typeof ref.path === 'string' &&
    typeof ref.sha256 === 'string' &&
    typeof ref.contentType === 'string' &&
    typeof ref.bytes === 'number'
  );
}

/**
 * The image type of some leading bytes: PNG, JPEG, GIF or WebP by their magic numbers (the formats
 * the service's upload accepts). At least 12 bytes are needed to recognise WebP.
 */
export function sniffImageType(head: Uint8Array): string | undefined {
  const at = (i: number): number => head[i] ?? -1;
  if (at(0) === 0x89 && at(1) === 0x50 && at(2) === 0x4e && at(3) === 0x47) return 'image/png';
  if (at(0) === 0xff && at(1) === 0xd8 && at(2) === 0xff) return 'image/jpeg';
  if (at(0) === 0x47 && at(1) === 0x49 && at(2) === 0x46 && at(3) === 0x38) return 'image/gif';
  const riff = at(0) === 0x52 && at(1) === 0x49 && at(2) === 0x46 && at(3) === 0x46;
  const webp = at(8) === 0x57 && at(9) === 0x45 && at(10) === 0x42 && at(11) === 0x50;
  if (riff && webp) return 'image/webp';
  return undefined;
}

/**
 * Turns a path written in the manifest into a {@link LocalFileRef}, or says why it cannot be used.
 * Relative paths resolve against the manifest's directory, not the working directory.
 */
export function resolveLocalFile(
  written: string,
  manifestDir: string,
  readInfo: FileInfoReader,
  maxBytes: number = DEFAULT_MAX_LOCAL_FILE_BYTES,
): { ref: LocalFileRef } | { problem: LocalFileProblem } {
  const shown = JSON.stringify(written);
  // A Windows drive path (C:\x or C:/x) is a path, not a scheme.
  if (OTHER_SCHEME_PATTERN.test(written) && !/^[a-z]:[\\/]/i.test(written)) {
    return {
      problem: {
        code: 'unsupported-url-scheme',
        message: `${shown} is neither an http(s) link nor a local file; the service fetches only http:// and https:// links`,
      },
    };
  }
  const path = resolve(manifestDir, written);
  const info = readInfo(path);
  if (info === undefined) {
    return {
      problem: {
        code: 'local-file-missing',
        message: `local file ${shown} does not exist (looked at ${path}); expected an http(s) URL or an existing image file`,
      },
    };
  }
  if (!info.isFile) {
    return {
      problem: {
        code: 'local-file-not-a-file',
        message: `local file ${shown} is not a regular file (${path}); expected an image file`,
      },
    };
  }
  if (info.bytes > maxBytes || info.sha256 === undefined) {
    return {
      problem: {
        code: 'local-file-too-large',
        message: `local file ${shown} is ${info.bytes} bytes; expected at most ${maxBytes} bytes`,
      },
    };
  }
  if (info.contentType === undefined) {
    return {
      problem: {
        code: 'local-file-not-image',
        message: `local file ${shown} is not an image; expected PNG, JPEG, GIF or WebP content (checked by its first bytes, not its name)`,
      },
    };
  }
  return {
    ref: { localFile: written, path, sha256: info.sha256, contentType: info.contentType, bytes: info.bytes },
  };
}
