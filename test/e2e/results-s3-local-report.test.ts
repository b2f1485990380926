import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import type { PageData, PageFile } from '../../src/report/page-data.js';
import type { ResultsIndex } from '../../src/report/results-index.js';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import { useS3Server } from '../s3-server.js';
import { makeWorkDir, simulatorEnv, writeImageMatrixManifest } from './apply-fixtures.js';
import { runCli } from './run-cli.js';

/**
 * `apply --output s3://… --report <a file of this machine>` (#30): the page is a review of this machine,
 * as `runner report --out DIR` writes one. Before, it linked every result and thumbnail into the
 * temporary folder the bucket's files were staged in, deleted when apply ended: a page of broken images.
 * The bucket keeps its own page (and a copy of `--junit FILE`): the local page is added, it does not
 * replace the bucket's (before, the bucket had no report.html).
 */
const s3 = useS3Server();
const FAST = ['--poll-interval', '15-25', '--first-poll', '50', '--yes'];
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** The page's data: every result and thumbnail it links, and its grid images. */
async function pageData(file: string): Promise<PageData> {
  return pageDataOf(await readFile(file, 'utf8'));
}

function pageDataOf(html: string): PageData {
  const json = /<script type="application\/json" id="report-data">\n?([\s\S]*?)<\/script>/.exec(html)?.[1];
  expect(json, 'the page carries its data').toBeDefined();
  return JSON.parse(json!) as PageData;
}

/** Every relative link of the page (results, thumbnails, grid images), decoded as a path. */
function localLinks(data: PageData): string[] {
  const links: string[] = [];
  const add = (files: readonly PageFile[]) => {
    for (const file of files) {
      if (!file.remote) links.push(file.href);
      if (file.thumb !== undefined) links.push(file.thumb);
    }
  };
  for (const entry of data.entries) {
    add(entry.files);
    for (const attempt of entry.replaced ?? []) add(attempt.files);
  }
  for (const grid of data.gridImages ?? []) links.push(grid.href);
  return links.map((link) => link.split('/').map(decodeURIComponent).join('/'));
}

describe('apply --output s3://… --report FILE (#30)', () => {
  let simulator: Simulator | undefined;
  afterEach(async () => {
    await simulator?.close();
    simulator = undefined;
  });

  it(
    'writes a page whose every result, thumbnail and grid image is a file beside it, with the service bytes',
    { timeout: 180_000 },
    async () => {
      simulator = await startSimulator({ timeScale: 0.005 });
      const dir = await makeWorkDir('results-s3-local-report');
      const env = { ...simulatorEnv(simulator), ...s3().cliEnv(dir) };
      const { file, jobIds } = await writeImageMatrixManifest(dir, {
        name: 'local',
        subjects: ['fox', 'owl'],
        styles: ['ink', 'oil'],
      });
      const output = `s3://${s3().bucket}/local`;
      const page = join(dir, 'review', 'night', 'report.html');
      const junit = join(dir, 'junit.xml');
      const applied = await runCli(
        ['apply', file, '--run', 'night-1', '--output', output, '--report', page, '--junit', junit, ...FAST],
        { env },
      );
      expect(applied.code, applied.stderr).toBe(0);
      expect(applied.stdout).toContain(`Report: ${page} (and ${output}/report.html)`);
      expect(applied.stdout).toContain(`JUnit: ${junit} (and ${output}/junit.xml)`);
      expect(applied.stdout).toMatch(
        /Copied 4 result\(s\) .* from s3:\/\/results\/local into .*review\/night/,
      );

      const data = await pageData(page);
      expect(data.entries.map((entry) => entry.id).sort()).toEqual([...jobIds].sort());
      const links = localLinks(data);
      // Each image result and its thumbnail at least, and the grid image.
      expect(links.length).toBeGreaterThanOrEqual(2 * jobIds.length + 1);
      for (const link of links) {
        expect(link, link).not.toMatch(/^\.\.\//);
        const there = await stat(join(dirname(page), link)).catch(() => undefined);
        expect(there?.isFile(), `${link} is a file beside the page`).toBe(true);
      }

      // The results beside the page are the service's bytes, as the bucket holds them.
      const index = JSON.parse(
        (await s3().readObject('local/results.json')).toString('utf8'),
      ) as ResultsIndex;
      expect(index.results).toHaveLength(jobIds.length);
      for (const row of index.results) {
        const served = Buffer.from(await (await fetch(row.resultUrl ?? '')).arrayBuffer());
        const copied = await readFile(join(dirname(page), row.file!));
        expect(sha256(copied), row.id).toBe(sha256(served));
        expect((await s3().readObject(`local/${row.file!}`)).equals(served), row.id).toBe(true);
      }
      // The bucket has its own page all the same, for the prefix served as a static site: every link
      // a relative key the bucket holds; and the files beside it, the JUnit XML as written here.
      const keys = await s3().listKeys('local');
      for (const name of ['report.html', 'results.json', 'results.csv', 'junit.xml'])
        expect(keys, name).toContain(`local/${name}`);
      const bucketPage = pageDataOf((await s3().readObject('local/report.html')).toString('utf8'));
      expect(bucketPage.entries.map((entry) => entry.id).sort()).toEqual([...jobIds].sort());
      const bucketLinks = localLinks(bucketPage);
      expect(bucketLinks.length).toBeGreaterThanOrEqual(2 * jobIds.length + 1);
      for (const link of bucketLinks) {
        expect(link, link).not.toMatch(/^(\.\.\/|\/|[a-z]+:)/);
        expect(keys, `${link} is a key beside the bucket's page`).toContain(`local/${link}`);
      }
      expect((await s3().readObject('local/junit.xml')).equals(await readFile(junit))).toBe(true);
      // Opened in a browser (where one is installed, as report-browser.test.ts): every card's image
      // decodes, none shows the "could not load" state.
      if (existsSync(CHROMIUM)) {
        const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
        try {
          const tab = await browser.newPage();
          await tab.goto(pathToFileURL(page).href);
          await tab.waitForSelector('body[data-ready="true"]');
          // Given as text: the page's DOM types are not this file's (as report-browser.test.ts does).
          const images = "[...document.querySelectorAll('#gallery img')]";
          await tab.waitForFunction(
            `${images}.length === ${jobIds.length} && ${images}.every((image) => image.complete)`,
            undefined,
            { timeout: 30_000 },
          );
          const widths = await tab.evaluate<number[]>(`${images}.map((image) => image.naturalWidth)`);
          expect(widths.filter((width) => width > 0)).toHaveLength(jobIds.length);
          expect(await tab.$$('#gallery .broken')).toHaveLength(0);
        } finally {
          await browser.close();
        }
      }
      // Nothing was created twice.
      expect(simulator.stats().jobsCreated).toBe(jobIds.length);
    },
  );
});
