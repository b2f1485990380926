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
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('puts report.html inside a folder that exists', () => {
    expect(namedPage('review', dir)).toBe(join('review', 'report.html'));
    expect(namedPage(join(dir, 'review'), '/elsewhere')).toBe(join(dir, 'review', 'report.html'));
  });

  it('puts report.html inside a path written with a trailing slash, existing or not', () => {
    expect(namedPage('new-review/', dir)).toBe(join('new-review', 'report.html'));
  });

  it('takes any other path as the page file, an existing file included', () => {
    expect(namedPage('page.html', dir)).toBe('page.html');
    expect(namedPage('pages/night', dir)).toBe('pages/night');
    expect(namedPage('review', '/elsewhere')).toBe('review');
  });
});
