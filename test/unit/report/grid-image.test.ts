import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { writeGridImages } from '../../../src/report/grid-image.js';
import type { ReportData, ReportEntry } from '../../../src/report/report-data.js';
import { sampleData } from './fixtures.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'runner-grid-image-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * A 2 × 2 run of done image jobs: the first `here` of them saved in this folder, the others in
 * another machine's folder (a run several machines applied: each saves the results it completed).
 */
async function run(here: number): Promise<ReportData> {
  const base = sampleData();
  const done = base.entries.find((entry) => entry.id === 'ad-latte-watercolor')!;
  const entries: ReportEntry[] = [];
  const cells: [string, string][] = [
    ['latte', 'ink'],
    ['latte', 'oil'],
    ['mocha', 'ink'],
    ['mocha', 'oil'],
  ];
  for (const [index, [drink, style]] of cells.entries()) {
    const id = `${drink}-${style}`;
    const path = index < here ? join(dir, `${id}.png`) : `/elsewhere/out/${id}.png`;
    if (index < here) {
      await sharp({ create: { width: 32, height: 32, channels: 3, background: '#c04040' } })
        .png()
        .toFile(path);
    }
    entries.push({
      ...done,
      id,
      matrix: { drink, style },
      files: [{ index: 1, url: `https://r/${id}.png`, path, mediaType: 'image' }],
    });
  }
  return { ...base, axes: ['drink', 'style'], entries };
}

describe('writeGridImages', () => {
  it('makes the grid image from a folder holding at least half of the done results', async () => {
    const images = await writeGridImages(await run(2), dir, () => undefined);
    expect(images.map((image) => image.file)).toEqual([join(dir, 'thumbnails', 'grid-drink-style.png')]);
    const { width, height } = await sharp(images[0]!.file).metadata();
    expect(width).toBeGreaterThan(2 * 128);
    expect(height).toBeGreaterThan(2 * 128);
  });

  it("makes none from a folder with fewer (one machine's share of a shared run): mostly empty cells", async () => {
    expect(await writeGridImages(await run(1), dir, () => undefined)).toEqual([]);
    expect(await writeGridImages(await run(0), dir, () => undefined)).toEqual([]);
    expect((await readdir(dir)).filter((name) => name === 'thumbnails')).toEqual([]);
  });
});
