import { spawn } from 'node:child_process';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import { startFaultProxy } from '../s3-fault-proxy.js';
import { useS3Server } from '../s3-server.js';
import { IMAGE_MODEL, makeWorkDir, simulatorEnv } from './apply-fixtures.js';
import { runCli, startCli } from './run-cli.js';

/**
 * A large image going to a bucket is kept in a private folder under the temporary folder for its
 * thumbnail (`execute/kept-image.ts`). A SIGKILL mid-download leaves that folder (up to hundreds of MB):
 * the next apply removes it, as it was left by a process of this host that no longer runs, and keeps a
 * live process's folder (#30). Before, it stayed there for good, named by nothing but random letters.
 */
const s3 = useS3Server();
const FAST = ['--poll-interval', '15-25', '--first-poll', '50', '--yes'];
const keptFolders = async (dir: string) =>
  (await readdir(dir)).filter((name) => name.startsWith('runner-image-')).sort();

describe('a kept image left by a SIGKILL (#30)', () => {
  let simulator: Simulator | undefined;
  const stops: (() => void)[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) stop();
    await simulator?.close();
    simulator = undefined;
  });

  it("is removed by the next apply; a live process's folder is kept", { timeout: 180_000 }, async () => {
    simulator = await startSimulator({ timeScale: 0.005 });
    const dir = await makeWorkDir('results-s3-kept-kill');
    // The CLI's temporary folder is the test's: what the kill leaves shows there.
    const temporary = join(dir, 'tmp');
    await mkdir(temporary);
    const file = join(dir, 'large.yaml');
    await writeFile(
      file,
      [
        'version: 1',
        'name: large',
        'defaults:',
        '  kind: image',
        `  model: ${IMAGE_MODEL}`,
        '  params: { format: png }',
        'jobs:',
        '  - id: poster',
        '    prompt: A detailed poster of a heron in a misty forest at dawn [[one-image]] [[image-mb:40]]',
        '',
      ].join('\n'),
    );
    const output = `s3://${s3().bucket}/kept`;
    const args = ['apply', file, '--run', 'night-1', '--output', output, ...FAST];
    const env = { ...simulatorEnv(simulator), ...s3().cliEnv(dir), TMPDIR: temporary };

    // The image's upload is held at the store, so the kill comes while its bytes are being kept.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    stops.push(release);
    const proxy = await startFaultProxy(s3().endpoint, (request) =>
      request.method !== 'HEAD' && request.method !== 'GET' && (request.url ?? '').includes('/kept/poster')
        ? { until: held }
        : 'pass',
    );
    let left: string[] = [];
    try {
      const first = startCli(args, { env: { ...env, AWS_ENDPOINT_URL_S3: proxy.endpoint } });
      for (let tries = 0; tries < 1500 && left.length === 0; tries++) {
        left = await keptFolders(temporary);
        if (left.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      first.kill();
      const killed = await first.result;
      expect(killed.signal, killed.stderr).toBe('SIGKILL');
    } finally {
      release();
      await proxy.close();
    }
    // What the kill left: one folder, named by the dead process.
    expect(left).toHaveLength(1);
    expect(await keptFolders(temporary)).toEqual(left);

    // A live process's folder (named as the runner names its own) is not touched.
    const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 600000)'], { stdio: 'ignore' });
    stops.push(() => live.kill('SIGKILL'));
    const host = hostname()
      .replace(/[^A-Za-z0-9.-]/g, '_')
      .slice(0, 64);
    const liveFolder = `runner-image-${live.pid}-${host}-aB3dE9`;
    await mkdir(join(temporary, liveFolder));
    await writeFile(join(temporary, liveFolder, 'image'), 'kept by a live process');

    const again = await runCli(args, { env });
    expect(again.code, again.stderr).toBe(0);
    expect(await keptFolders(temporary)).toEqual([liveFolder]);
    expect(await readdir(join(temporary, liveFolder))).toEqual(['image']);
    expect((await s3().listKeys('kept')).filter((key) => key.endsWith('.png'))).toEqual(['kept/poster.png']);
    expect(simulator.stats().jobsCreated).toBe(1);
  });
});
