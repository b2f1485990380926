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
import { DAY, sampleData } from './fixtures.js';

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

  it('has one row per result file of a job with results and one per other job, and schemaVersion 2', () => {
    expect(index.schemaVersion).toBe(2);
    expect(index.axes).toEqual(['product', 'style']);
    expect(index.results.map((row) => [row.id, row.fileIndex, row.status, row.file])).toEqual([
      ['ad-latte-watercolor', 1, 'done', 'ad-latte-watercolor.png'],
      ['ad-latte-watercolor', 2, 'done', 'ad-latte-watercolor+2.png'],
      ['ad-mocha-watercolor', 1, 'downloading', undefined],
      ['rejected', undefined, 'failed', undefined],
      ['busy', undefined, 'deferred', undefined],
      ['lost', undefined, 'uncertain', undefined],
      ['never', undefined, 'pending', undefined],
    ]);
    expect(index.results[0]).toMatchObject({
      matrix: { product: 'latte', style: 'watercolor' },
      model: 'chatgpt-image-sangtao',
      params: { aspectRatio: '16:9', referenceImages: ['./logo.png'] },
      attempts: 1,
      credits: 4,
      bytes: 10,
      sha256: 'aa',
      serviceJobId: 'J1',
      resultUrl: 'https://r/J1/1.png',
    });
    expect(index.results[3]).toEqual({
      id: 'rejected',
      status: 'failed',
      matrix: {},
      prompt: '<img src=x onerror=alert(1)>',
      model: 'm',
      kind: 'image',
      params: {},
      attempts: 1,
      credits: 0,
      failureKind: 'CONTENT_REJECTED',
      error: 'policy <b>',
      advice: 'The prompt is against the content policy: change the prompt.',
      serviceJobId: 'J3',
    });
    expect(index.results[4]).toMatchObject({
      status: 'deferred',
      failureKind: 'QUOTA_EXHAUSTED',
      notBefore: new Date(DAY).toISOString(),
    });
    expect(index.results[5]).toMatchObject({ status: 'uncertain', error: 'the answer was lost' });
    expect(index.results[6]).toEqual({
      id: 'never',
      status: 'pending',
      matrix: {},
      model: 'm',
      kind: 'image',
      params: {},
      attempts: 0,
      credits: 0,
    });
    expect(buildResultsIndex(sampleData(), '/elsewhere').results[0]?.file).toBe(
      '../out/ad-latte-watercolor.png',
    );
  });

  it('writes RFC 4180 CSV after a byte-order mark, one matrix column per axis, and defuses spreadsheet formulas', () => {
    const csv = renderResultsCsv(index);
    expect(csv.startsWith('\uFEFFid,')).toBe(true);
    const lines = csv.slice(1).split('\r\n');
    expect(lines[0]).toBe(
      'id,fileIndex,status,prompt,model,kind,params,attempts,credits,failureKind,error,advice,notBefore,serviceJobId,file,bytes,sha256,resultUrl,resultUrlExpiresAt,matrix.product,matrix.style',
    );
    expect(lines[1]).toBe(
      'ad-latte-watercolor,1,done,"A watercolor latte, ""quoted"", with a comma",chatgpt-image-sangtao,image,' +
        '"{""aspectRatio"":""16:9"",""referenceImages"":[""./logo.png""]}",1,4,,,,,J1,ad-latte-watercolor.png,10,aa,' +
        'https://r/J1/1.png,2026-11-30T08:00:00.002Z,latte,watercolor',
    );
    expect(lines[3]).toContain(`"'=HYPERLINK(""x"")"`);
    expect(lines[4]).toBe(
      'rejected,,failed,<img src=x onerror=alert(1)>,m,image,{},1,0,CONTENT_REJECTED,policy <b>,' +
        'The prompt is against the content policy: change the prompt.,,J3,,,,,,,',
    );
    expect(lines[7]).toBe('never,,pending,,m,image,{},0,0,,,,,,,,,,,,');
    expect(lines).toHaveLength(9); // header, 7 rows, and the final line break
    expect(lines[8]).toBe('');
  });

  it('writes a non-ASCII prompt as UTF-8 text that decodes back whole', () => {
    const data = sampleData();
    const first = data.entries[0]!;
    const csv = renderResultsCsv(
      buildResultsIndex({ ...data, entries: [{ ...first, prompt: 'Café crème — 抹茶ラテ 💡' }] }, '/out'),
    );
    const bytes = Buffer.from(csv, 'utf8');
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(new TextDecoder('utf-8').decode(bytes)).toContain(',Café crème — 抹茶ラテ 💡,');
  });
});
