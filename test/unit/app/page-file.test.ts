import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { namedPage } from '../../../src/app/page-file.js';

describe('namedPage: where a page named by --out / --report / report: goes', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runner-page-file-'));
    await mkdir(join(dir, 'review'));
    await writeFile(join(dir, 'page.html'), 'old page');
    await writeFile(join(dir, 'night'), 'a file with no extension');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('puts report.html inside a folder that exists', () => {
    expect(namedPage('review', dir)).toBe(join('review', 'report.html'));
    expect(namedPage(join(dir, 'review'), '/elsewhere')).toBe(join(dir, 'review', 'report.html'));
  });

  it('puts report.html inside a path written with a trailing slash, existing or not', () => {
    expect(namedPage('new-review/', dir)).toBe(join('new-review', 'report.html'));
  });

  it('puts report.html inside a new name with no extension: a page named `review` opens nowhere', () => {
    expect(namedPage('pages/night', dir)).toBe(join('pages/night', 'report.html'));
    expect(namedPage('fresh', dir)).toBe(join('fresh', 'report.html'));
  });

  it('takes any other path as the page file: a name with an extension, an existing file', () => {
    expect(namedPage('page.html', dir)).toBe('page.html');
    expect(namedPage('pages/night.htm', dir)).toBe('pages/night.htm');
    // Existing, relative to base: a file with no extension stays the file it is.
    expect(namedPage('night', dir)).toBe('night');
    expect(namedPage(join(dir, 'night'), '/elsewhere')).toBe(join(dir, 'night'));
    expect(namedPage('/dev/null', dir)).toBe('/dev/null');
  });
});
