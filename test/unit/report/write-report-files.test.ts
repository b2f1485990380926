import { describe, it, expect, afterEach, beforeEach } from 'vitest';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderReportHtml } from '../../../src/report/render-html.js';
import { reportStatusOf } from '../../../src/report/report-data.js';
import { renderJunit } from '../../../src/report/render-junit.js';
import { buildResultsIndex, renderResultsCsv } from '../../../src/report/results-index.js';
import { writeReportFiles } from '../../../src/report/write-report-files.js';
import { sampleData, sampleDataAsBuilt } from './fixtures.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'runner-report-files-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('writeReportFiles', () => {
  it('leaves no temporary file behind when a file cannot be put in place (#24.3)', async () => {
    // A folder where the JUnit file should go: its temporary is written, the rename fails.
    const junitFile = join(dir, 'junit.xml');
    await mkdir(junitFile);
    // The file is named among the failures (the others are written: see below).
    const files = await writeReportFiles(sampleDataAsBuilt(), { resultsDir: dir, junitFile });
    expect(files.failures.map((failure) => failure.file)).toEqual([junitFile]);
    expect(files.failures[0]?.message).toMatch(/EISDIR|directory/);
    expect((await readdir(dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('writes the index, the page and JUnit from one pass over the entries, byte for byte what the renderers give', async () => {
    const reportFile = join(dir, 'page', 'report.html');
    let passes = 0;
    const built = sampleDataAsBuilt();
    // Enough entries for each file to be written in several batches.
    const many = Array.from({ length: 400 }, () => [...built.entries]).flat();
    const data = {
      ...built,
      entries: {
        length: many.length,
        *[Symbol.iterator]() {
          passes++;
          yield* many;
        },
        statuses: () => many.map(reportStatusOf),
      },
    };
    const junitFile = join(dir, 'junit.xml');
    const files = await writeReportFiles(data, { resultsDir: dir, reportFile, junitFile }, 2.5);
    expect(passes).toBe(1);
    const whole = { ...built, entries: many };
    const index = buildResultsIndex(whole, dir);
    const json = await readFile(files.resultsJson, 'utf8');
    expect(json.length).toBeGreaterThan(4 * 64 * 1024);
    expect(json).toBe(`${JSON.stringify(index, null, 2)}\n`);
    expect(await readFile(files.resultsCsv, 'utf8')).toBe(renderResultsCsv(index));
    expect(await readFile(reportFile, 'utf8')).toBe(renderReportHtml(whole, join(dir, 'page')));
    // JUnit's totals came from the statuses, not from a second pass over the entries.
    expect(files.junit).toBe(junitFile);
    expect(await readFile(junitFile, 'utf8')).toBe(renderJunit(whole, 2.5));
    // Renamed into place: no temporary file is left.
    expect((await readdir(dir)).sort()).toEqual(['junit.xml', 'page', 'results.csv', 'results.json']);
  });

  it('writes an index without rows, and a page without entries, as the renderers do', async () => {
    const empty = { ...sampleData(), entries: [] };
    const files = await writeReportFiles(empty, { resultsDir: dir, reportFile: join(dir, 'report.html') });
    const index = buildResultsIndex(empty, dir);
    expect(index.results).toEqual([]);
    expect(await readFile(files.resultsJson, 'utf8')).toBe(`${JSON.stringify(index, null, 2)}\n`);
    expect(await readFile(files.resultsCsv, 'utf8')).toBe(renderResultsCsv(index));
    expect(await readFile(join(dir, 'report.html'), 'utf8')).toBe(renderReportHtml(empty, dir));
  });

  it('writes the others when one file cannot be written, names it, and leaves no temporary file', async () => {
    const built = sampleDataAsBuilt();
    await mkdir(join(dir, 'results.json'));
    await writeFile(join(dir, 'blocker'), 'a file where a folder is expected');
    const files = await writeReportFiles(built, {
      resultsDir: dir,
      reportFile: join(dir, 'report.html'),
      junitFile: join(dir, 'blocker', 'junit.xml'),
    });
    expect(files.failures.map((failure) => failure.file).sort()).toEqual([
      join(dir, 'blocker', 'junit.xml'),
      join(dir, 'results.json'),
    ]);
    expect(files.junit).toBeUndefined();
    expect(files.report).toBe(join(dir, 'report.html'));
    expect(await readFile(files.resultsCsv, 'utf8')).toContain('id');
    expect(await readFile(join(dir, 'report.html'), 'utf8')).toContain('<html');
    // No grid image: the sample's results were saved in another folder (/out), not this one.
    expect((await readdir(dir)).sort()).toEqual(['blocker', 'report.html', 'results.csv', 'results.json']);
    expect(await readdir(join(dir, 'results.json'))).toEqual([]);
  });
});
