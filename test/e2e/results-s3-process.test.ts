import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useS3Server } from '../s3-server.js';

/**
 * The S3 results store in a process of its own, as the built CLI loads it (dist/): what reaches
 * stderr, and a SIGKILL in the middle of a multipart upload.
 */
const s3 = useS3Server();
const storeModule = fileURLToPath(new URL('../../dist/results/s3-results.js', import.meta.url));
const MIB = 1024 * 1024;
let dir: string;

beforeAll(() => {
  if (!existsSync(storeModule)) throw new Error(`${storeModule} is missing: run \`npm run build\` first`);
  dir = mkdtempSync(join(tmpdir(), 'runner-s3-process-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Child {
  result: Promise<{ code: number | null; stdout: string; stderr: string }>;
  kill(): void;
}

/** Runs an ES module script in a fresh Node with a clean environment, s3rver's endpoint and credentials. */
function runScript(script: string): Child {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    env: {
      PATH: process.env.PATH ?? '',
      ...s3().env,
      AWS_ENDPOINT_URL_S3: s3().endpoint,
      AWS_CONFIG_FILE: join(dir, 'aws-config'),
      AWS_SHARED_CREDENTIALS_FILE: join(dir, 'aws-credentials'),
      AWS_EC2_METADATA_DISABLED: 'true',
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (data: Buffer) => (stdout += data.toString()));
  child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
  return {
    result: new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr }))),
    kill: () => child.kill('SIGKILL'),
  };
}

/** A script that puts `file` under `key` of s3://results/proc, throttled after `throttleAfter` bytes. */
const putScript = (file: string, key: string, throttleAfter = Infinity) => `
  import { createReadStream } from 'node:fs';
  import { setTimeout as sleep } from 'node:timers/promises';
  const { openS3ResultsStore } = await import(${JSON.stringify(storeModule)});
  const store = await openS3ResultsStore('s3://${s3().bucket}/proc', { partSize: ${5 * MIB} });
  async function* body() {
    let sent = 0;
    for await (const chunk of createReadStream(${JSON.stringify(file)}, { highWaterMark: 65536 })) {
      if (sent >= ${throttleAfter === Infinity ? 'Infinity' : throttleAfter}) await sleep(50);
      sent += chunk.length;
      yield chunk;
    }
  }
  await store.preflight();
  const stored = await store.put(${JSON.stringify(key)}, body());
  store.close();
  console.log(JSON.stringify(stored));
`;

describe('the S3 results store in its own process (built, dist/)', () => {
  it("never lets the SDK's Node-20 end-of-support warning reach stderr", async () => {
    const file = join(dir, 'small.bin');
    writeFileSync(file, randomBytes(4096));
    const { code, stdout, stderr } = await runScript(putScript(file, 'quiet.png')).result;
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ bytes: 4096 });
    expect(stderr).toBe('');
    // The control: the same SDK made a client the plain way warns on this Node (the check above can fail).
    if (Number(process.versions.node.split('.')[0]) < 22) {
      const plain = await runScript(`
        const { S3Client } = await import('@aws-sdk/client-s3');
        new S3Client({}).destroy();
      `).result;
      expect(plain.stderr).toContain('NodeVersionSupportWarning');
    }
  });

  it('a SIGKILL mid multipart upload stores nothing under the key; the put again aborts the leftover and stores the bytes', async () => {
    const data = randomBytes(14 * MIB);
    const file = join(dir, 'video.bin');
    writeFileSync(file, data);
    const killed = runScript(putScript(file, 'video.mp4', 6 * MIB));
    // Killed once s3rver holds an unfinished upload of the key (its first part on the way or stored).
    for (let waited = 0; (await s3().unfinishedUploads()).length === 0; waited += 50) {
      if (waited > 20_000) throw new Error('the upload never began');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    killed.kill();
    expect((await killed.result).code).toBeNull();
    expect(await s3().storedBytes('proc/video.mp4')).toBeUndefined();
    expect(await s3().unfinishedUploads()).toEqual(['proc/video.mp4']);

    const again = await runScript(putScript(file, 'video.mp4')).result;
    expect(again.stderr).toBe('');
    expect(JSON.parse(again.stdout)).toMatchObject({ bytes: data.length });
    expect((await s3().storedBytes('proc/video.mp4'))?.equals(data)).toBe(true);
    expect(await s3().unfinishedUploads()).toEqual([]);
  });
});
