import { describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildResultsIndex,
  describeResultsIndex,
  renderResultsCsv,
  renderResultsJsonChunks,
} from '../../../src/report/results-index.js';
import { writeWholeInPieces } from '../../../src/report/write-report-files.js';
import { sampleData } from './fixtures.js';

describe('results index', () => {
  const index = buildResultsIndex(sampleData(), '/out');

  it('is written in pieces byte for byte as JSON.stringify(index, null, 2) writes it whole', async () => {
    const unusual = {
      ...index,
      results: index.results.map((row, i) => ({ ...row, prompt: `line\nbreak "${i}" é ${'💡'.repeat(i)}` })),
    };
    for (const value of [
      index,
      unusual,
      { ...index, results: [] },
      { ...index, results: index.results.slice(0, 1) },
    ]) {
      expect([...renderResultsJsonChunks(value)].join('')).toBe(`${JSON.stringify(value, null, 2)}\n`);
    }
    // Rows made on demand (as apply writes the index) render the same text, and can be read twice.
    const lazy = describeResultsIndex(sampleData(), '/out');
    expect([...renderResultsJsonChunks(lazy)].join('')).toBe(`${JSON.stringify(index, null, 2)}\n`);
    expect(renderResultsCsv(lazy)).toBe(renderResultsCsv(index));
    const dir = await mkdtemp(join(tmpdir(), 'runner-results-'));
    try {
      const file = join(dir, 'sub', 'results.json');
      // Pieces past the write size, so more than one write happens.
      const pieces = Array.from({ length: 3000 }, (_, i) => `${String(i).padStart(999, '·')}\n`);
      await writeWholeInPieces(file, pieces);
      expect(await readFile(file, 'utf8')).toBe(pieces.join(''));
      expect((await stat(file)).mode & 0o777).toBe(0o600);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('has one row per result file, files relative to the index, and schemaVersion 1', () => {
    expect(index.schemaVersion).toBe(1);
    expect(index.axes).toEqual(['product', 'style']);
    expect(index.results.map((row) => [row.id, row.fileIndex, row.file])).toEqual([
      ['ad-latte-watercolor', 1, 'ad-latte-watercolor.png'],
      ['ad-latte-watercolor', 2, 'ad-latte-watercolor+2.png'],
      ['ad-mocha-watercolor', 1, undefined],
    ]);
    expect(index.results[0]).toMatchObject({
      matrix: { product: 'latte', style: 'watercolor' },
      model: 'chatgpt-image-sangtao',
      credits: 4,
      bytes: 10,
      sha256: 'aa',
      serviceJobId: 'J1',
      resultUrl: 'https://r/J1/1.png',
    });
    expect(buildResultsIndex(sampleData(), '/elsewhere').results[0]?.file).toBe(
      '../out/ad-latte-watercolor.png',
    );
  });

  it('writes RFC 4180 CSV, one matrix column per axis, and defuses spreadsheet formulas', () => {
    const lines = renderResultsCsv(index).split('\r\n');
    expect(lines[0]).toBe(
      'id,fileIndex,prompt,model,kind,credits,file,bytes,sha256,serviceJobId,resultUrl,resultUrlExpiresAt,matrix.product,matrix.style',
    );
    expect(lines[1]).toMatch(
      /^ad-latte-watercolor,1,"A watercolor latte, ""quoted"", with a comma",chatgpt-image-sangtao,image,4,ad-latte-watercolor\.png,10,aa,J1,https:\/\/r\/J1\/1\.png,2026-11-30T08:00:00\.002Z,latte,watercolor$/,
    );
    expect(lines[3]).toContain(`"'=HYPERLINK(""x"")"`);
    expect(lines).toHaveLength(5); // header, 3 rows, and the final line break
    expect(lines[4]).toBe('');
  });
});
