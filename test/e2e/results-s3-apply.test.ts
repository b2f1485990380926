import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ResultsIndex } from '../../src/report/results-index.js';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import { startFaultProxy } from '../s3-fault-proxy.js';
import { useS3Server } from '../s3-server.js';
import { IMAGE_MODEL, makeWorkDir, simulatorEnv } from './apply-fixtures.js';
import { runCli, startCli } from './run-cli.js';

/**
 * `runner apply --output s3://bucket/prefix` (#30.3) against the simulator and a real S3 server
 * (s3rver), no nock: every result in the bucket once with the service's bytes, read back through the
 * SDK and from s3rver's own folder; status reads the bucket; a bucket that cannot be written is refused
 * before anything is paid; a URL with credentials is refused as a usage error.
 */
const s3 = useS3Server();
const FAST = ['--poll-interval', '15-25', '--first-poll', '50', '--yes'];
const SUBJECTS = ['fox', 'owl', 'heron'];
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

async function checkout(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, 'nightly.yaml');
  await writeFile(
    file,
    [
      'version: 1',
      'name: nightly',
      'defaults:',
      '  kind: image',
      `  model: ${IMAGE_MODEL}`,
      '  params: { format: png }',
      'jobs:',
      ...SUBJECTS.flatMap((subject) => [
        `  - id: ${subject}`,
        `    prompt: A detailed ink picture of a ${subject} in a misty forest at dawn [[one-image]]`,
      ]),
      '',
    ].join('\n'),
  );
  return file;
}

const listKeys = (prefix: string) => s3().listKeys(prefix);
const readObject = (key: string) => s3().readObject(key);

const quiet = (stderr: string) => {
  expect(stderr).not.toMatch(/end of support|NodeDeprecation/i);
};

describe('apply --output s3://bucket/prefix (#30.3)', () => {
  let simulator: Simulator | undefined;
  afterEach(async () => {
    await simulator?.close();
    simulator = undefined;
  });

  it(
    'puts every result in the bucket once with the service bytes; status reads it; a resume stores nothing again',
    { timeout: 120_000 },
    async () => {
      simulator = await startSimulator({ timeScale: 0.005 });
      const dir = await makeWorkDir('results-s3-apply');
      const env = { ...simulatorEnv(simulator), ...s3().cliEnv(dir) };
      const file = await checkout(join(dir, 'a'));
      const output = `s3://${s3().bucket}/night`;
      const one = await runCli(['apply', file, '--run', 'night-1', '--output', output, ...FAST], { env });
      expect(one.code, one.stderr).toBe(0);
      quiet(one.stderr);
      expect(simulator.stats().jobsCreated).toBe(3);
      expect(one.stdout).toContain(`${output}/report.html`);

      const keys = await listKeys('night');
      const results = SUBJECTS.map((subject) => `night/${subject}.png`);
      // Beside them, each result's thumbnail under thumbnails/ (results-s3-thumbnails.test.ts).
      expect(keys.filter((key) => !key.startsWith('night/thumbnails/'))).toEqual(
        // The prefix's claim: the run that writes there (results-s3-claim.test.ts).
        [
          'night/.runner-run.json',
          'night/report.html',
          'night/results.csv',
          'night/results.json',
          ...results,
        ].sort(),
      );
      expect(keys.filter((key) => key.startsWith('night/thumbnails/') && key.endsWith('.webp'))).toHaveLength(
        3,
      );
      const index = JSON.parse((await readObject('night/results.json')).toString('utf8')) as ResultsIndex;
      expect(index.results).toHaveLength(3);
      for (const row of index.results) {
        const served = Buffer.from(await (await fetch(row.resultUrl ?? '')).arrayBuffer());
        const key = `night/${row.id}.png`;
        expect((await readObject(key)).equals(served), key).toBe(true);
        expect((await s3().storedBytes(key))?.equals(served), key).toBe(true);
        expect(row.sha256).toBe(sha256(served));
      }
      // The page links each result by its key, relative to the page.
      const page = (await readObject('night/report.html')).toString('utf8');
      for (const subject of SUBJECTS) expect(page).toContain(`"${subject}.png"`);

      // status reads the bucket: every recorded result is there (HEAD), nothing missing.
      const status = await runCli(['status', file, '--run', 'night-1', '--json'], { env });
      expect(status.code, status.stderr).toBe(0);
      quiet(status.stderr);
      expect(JSON.parse(status.stdout)).toMatchObject({ outputDir: output, missingHere: 0 });

      // `report --out DIR` on another machine: the page and every result (with its thumbnail) copied
      // into a folder of this machine, the page linking them by key, for a review that works offline.
      // Before, the page linked into a temporary folder deleted when the command ended.
      const review = join(dir, 'review');
      const reported = await runCli(
        ['report', file, '--run', 'night-1', '--out', join(review, 'report.html')],
        {
          env,
        },
      );
      expect(reported.code, reported.stderr).toBe(0);
      quiet(reported.stderr);
      expect(reported.stderr).toMatch(/Copied 3 result\(s\) .* from s3:\/\/.* for an offline review/);
      const offlinePage = await readFile(join(review, 'report.html'), 'utf8');
      for (const row of index.results) {
        const served = Buffer.from(await (await fetch(row.resultUrl ?? '')).arrayBuffer());
        expect((await readFile(join(review, `${row.id}.png`))).equals(served), row.id).toBe(true);
        expect(offlinePage).toContain(`"${row.id}.png"`);
      }
      expect(
        (await readdir(join(review, 'thumbnails'))).filter((name) => name.endsWith('.webp')),
      ).toHaveLength(3);
      expect(offlinePage).not.toContain('runner-bucket-page-');

      // Applied again through a proxy that records what reaches the store: every result is found in
      // the bucket (HEAD), none is put again, nothing is created.
      const proxy = await startFaultProxy(s3().endpoint, () => 'pass');
      try {
        const again = await runCli(['apply', file, '--run', 'night-1', '--output', output, ...FAST], {
          env: { ...env, AWS_ENDPOINT_URL_S3: proxy.endpoint },
        });
        expect(again.code, again.stderr).toBe(0);
        quiet(again.stderr);
        for (const key of results) {
          expect(proxy.seen).toContain(`HEAD /${s3().bucket}/${key}`);
          expect(proxy.seen.filter((line) => line.startsWith(`PUT /${s3().bucket}/${key}`))).toEqual([]);
        }
      } finally {
        await proxy.close();
      }
      expect(simulator.stats().jobsCreated).toBe(3);
    },
  );

  it(
    'resumed after a SIGKILL mid-run: 0 extra creates, every result once, none stored put again',
    { timeout: 120_000 },
    async () => {
      simulator = await startSimulator({ timeScale: 0.005 });
      const dir = await makeWorkDir('results-s3-kill');
      const env = { ...simulatorEnv(simulator), ...s3().cliEnv(dir) };
      const file = await checkout(join(dir, 'a'));
      const output = `s3://${s3().bucket}/killed`;
      const args = ['apply', file, '--run', 'night-1', '--output', output, ...FAST];
      const results = SUBJECTS.map((subject) => `killed/${subject}.png`);
      const first = startCli(args, { env });
      // Killed as soon as the journal records a first result stored (usually before the run's end: the
      // others are still downloading; if the run won the race, the resume below is checked the same way).
      // Only what was RECORDED is known to be stored: an object put but not yet journaled when the kill
      // came is put again on resume (nothing proves it is the result until it is downloaded again).
      const journal = join(dir, 'a', '.runner', 'nightly', 'night-1', 'journal.jsonl');
      let before: string[] = [];
      for (let tries = 0; tries < 600 && before.length === 0; tries++) {
        before = await recordedKeys(journal);
        if (before.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      first.kill();
      await first.result;
      before = (await recordedKeys(journal)).map((key) => `killed/${key}`);
      expect(before.length).toBeGreaterThan(0);
      for (const key of before) expect(results).toContain(key);

      const proxy = await startFaultProxy(s3().endpoint, () => 'pass');
      try {
        const again = await runCli(args, { env: { ...env, AWS_ENDPOINT_URL_S3: proxy.endpoint } });
        expect(again.code, again.stderr).toBe(0);
        quiet(again.stderr);
        // What was recorded as stored before the kill is found (HEAD), never put again.
        for (const key of before)
          expect(proxy.seen.filter((line) => line.startsWith(`PUT /${s3().bucket}/${key}`))).toEqual([]);
      } finally {
        await proxy.close();
      }
      expect(simulator.stats().jobsCreated).toBe(3);
      const keys = await listKeys('killed');
      expect(keys.filter((key) => key.endsWith('.png')).sort()).toEqual([...results].sort());
      const index = JSON.parse((await readObject('killed/results.json')).toString('utf8')) as ResultsIndex;
      for (const row of index.results) {
        const served = Buffer.from(await (await fetch(row.resultUrl ?? '')).arrayBuffer());
        expect((await s3().storedBytes(`killed/${row.id}.png`))?.equals(served), row.id).toBe(true);
      }
      expect(await s3().unfinishedUploads()).toEqual([]);
    },
  );

  it(
    'refuses a bucket that does not exist before anything is paid (exit 1), and a URL with credentials (exit 2)',
    {
      timeout: 60_000,
    },
    async () => {
      simulator = await startSimulator({ timeScale: 0.005 });
      const dir = await makeWorkDir('results-s3-refused');
      const env = { ...simulatorEnv(simulator), ...s3().cliEnv(dir) };
      const file = await checkout(join(dir, 'a'));
      const missing = await runCli(['apply', file, '--output', 's3://no-such-bucket/night', ...FAST], {
        env,
      });
      expect(missing.code, missing.stderr).toBe(1);
      expect(missing.stderr).toContain('no-such-bucket');
      quiet(missing.stderr);
      expect(simulator.stats().jobsCreated).toBe(0);

      const secret = await runCli(
        ['apply', file, '--output', 's3://AKIDEXAMPLE:s3cr3t@results/night', ...FAST],
        {
          env,
        },
      );
      expect(secret.code).toBe(2);
      expect(secret.stderr).not.toContain('s3cr3t');
      expect(simulator.stats().jobsCreated).toBe(0);
    },
  );
});

/** The keys the journal records as stored (`downloaded` records), as far as it was written. */
async function recordedKeys(journal: string): Promise<string[]> {
  const text = await readFile(journal, 'utf8').catch(() => '');
  const keys: string[] = [];
  for (const line of text.split('\n')) {
    if (!line.includes('"downloaded"')) continue;
    try {
      const record = JSON.parse(line) as { type?: string; file?: string };
      if (record.type === 'downloaded' && typeof record.file === 'string') keys.push(record.file);
    } catch {
      // A line cut by the kill: not a record.
    }
  }
  return keys;
}
