import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  isLocalFileRef,
  isRemoteUrl,
  resolveLocalFile,
  sniffImageType,
  type FileInfoReader,
} from '../../../src/catalog/local-files.js';
import { createFileInfoReader } from '../../../src/catalog/read-file-info.js';
import { validateJobsAgainstCatalog } from '../../../src/catalog/validate-job.js';
import { locate, makeCatalog, makeJob } from './fixtures.js';

/** A real 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'runner-local-files-'));
  writeFileSync(join(dir, 'logo.png'), PNG);
  writeFileSync(join(dir, 'fake.png'), 'this is text, not an image\n');
  writeFileSync(join(dir, 'big.png'), Buffer.concat([PNG, Buffer.alloc(2048)]));
  mkdirSync(join(dir, 'folder.png'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sniffImageType', () => {
  it('recognises PNG, JPEG, GIF and WebP by magic bytes only', () => {
    expect(sniffImageType(PNG)).toBe('image/png');
    expect(sniffImageType(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0]))).toBe('image/jpeg');
    expect(sniffImageType(Buffer.from('GIF89a......'))).toBe('image/gif');
    expect(sniffImageType(Buffer.from('RIFF\x10\x00\x00\x00WEBPVP8 '))).toBe('image/webp');
    expect(sniffImageType(Buffer.from('RIFF\x10\x00\x00\x00WAVEfmt '))).toBeUndefined();
    expect(sniffImageType(Buffer.from('%PDF-1.7'))).toBeUndefined();
    expect(sniffImageType(new Uint8Array())).toBeUndefined();
  });
});

describe('isRemoteUrl', () => {
  it('treats only http(s) links as remote', () => {
    expect(isRemoteUrl('https://cdn.example/a.png')).toBe(true);
    expect(isRemoteUrl('HTTP://cdn.example/a.png')).toBe(true);
    expect(isRemoteUrl('ftp://cdn.example/a.png')).toBe(false);
    expect(isRemoteUrl('assets/a.png')).toBe(false);
  });
});

describe('createFileInfoReader + resolveLocalFile with real files', () => {
  it('turns an image into a ref with its hash, type and size', () => {
    const result = resolveLocalFile('logo.png', dir, createFileInfoReader());
    expect(result).toEqual({
      ref: {
        localFile: 'logo.png',
        path: join(dir, 'logo.png'),
        sha256: sha256(PNG),
        contentType: 'image/png',
        bytes: PNG.byteLength,
      },
    });
    expect('ref' in result && isLocalFileRef(result.ref)).toBe(true);
  });

  it('refuses a text file named .png, a folder, a missing file and an oversized file', () => {
    const read = createFileInfoReader({ maxBytes: 1024 });
    expect(resolveLocalFile('fake.png', dir, read, 1024)).toEqual({
      problem: {
        code: 'local-file-not-image',
        message:
          'local file "fake.png" is not an image; expected PNG, JPEG, GIF or WebP content (checked by its first bytes, not its name)',
      },
    });
    expect(resolveLocalFile('folder.png', dir, read, 1024)).toMatchObject({
      problem: { code: 'local-file-not-a-file' },
    });
    expect(resolveLocalFile('nope.png', dir, read, 1024)).toEqual({
      problem: {
        code: 'local-file-missing',
        message: `local file "nope.png" does not exist (looked at ${join(dir, 'nope.png')}); expected an http(s) URL or an existing image file`,
      },
    });
    expect(resolveLocalFile('big.png', dir, read, 1024)).toEqual({
      problem: {
        code: 'local-file-too-large',
        message: `local file "big.png" is ${PNG.byteLength + 2048} bytes; expected at most 1024 bytes`,
      },
    });
  });
});

describe('validateJobsAgainstCatalog with local files', () => {
  it('resolves local reference images and uploads, reading each distinct path once', () => {
    const real = createFileInfoReader();
    const reads: string[] = [];
    const fileInfo: FileInfoReader = (path) => {
      reads.push(path);
      return real(path);
    };
    const jobs = [1, 2, 3].map((n) =>
      makeJob({ id: `j${n}`, params: { referenceImages: ['logo.png', 'https://cdn.example/x.png'] } }),
    );
    jobs.push(makeJob({ id: 'mask', model: 'flux-pro', params: { style: 'photo', mask: './logo.png' } }));
    const { planned, issues } = validateJobsAgainstCatalog(jobs, makeCatalog(), {
      locate,
      manifestDir: dir,
      fileInfo,
    });
    expect(issues).toEqual([]);
    expect(reads).toEqual([join(dir, 'logo.png')]);
    const [first] = planned[0]!.params.referenceImages as unknown[];
    expect(first).toMatchObject({ localFile: 'logo.png', sha256: sha256(PNG), contentType: 'image/png' });
    expect((planned[0]!.params.referenceImages as unknown[])[1]).toBe('https://cdn.example/x.png');
    expect(planned[3]!.params.mask).toMatchObject({ localFile: './logo.png', sha256: sha256(PNG) });
    // Same content, same payload: the file counts by its hash, not the path spelling.
    expect(planned[0]!.payloadHash).toBe(planned[1]!.payloadHash);
  });

  it('reports a bad local file at the item of the param that names it', () => {
    const job = makeJob({ params: { referenceImages: ['https://cdn.example/x.png', 'fake.png'] } });
    const { planned, issues } = validateJobsAgainstCatalog([job], makeCatalog(), {
      locate,
      manifestDir: dir,
      fileInfo: createFileInfoReader(),
    });
    expect(planned).toEqual([]);
    expect(issues).toMatchObject([
      {
        severity: 'error',
        code: 'local-file-not-image',
        jobId: 'job-1',
        location: { file: 'm.yaml#jobs.0.params.referenceImages.1' },
      },
    ]);
  });
});
