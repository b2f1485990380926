import { hash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createBackgroundSha256, SHA256_BYTES } from '../../src/background-sha256.js';
import { createHashColumn } from '../../src/plan/hash-column.js';

/** Texts of every kind the ring meets: short, multi-byte, empty, and too long for a slot. */
function textAt(index: number): string {
  if (index % 97 === 0) return 'é'.repeat(1500 + (index % 7)); // 3,000 UTF-8 bytes: past a slot
  if (index % 31 === 0) return '';
  if (index % 11 === 0) return `un café ☕ n°${index} 𝄞`;
  return `{"kind":"image","model":"m","params":{},"prompt":"job ${index}"}`;
}

const sha256 = (text: string): Buffer => hash('sha256', text, 'buffer');

async function digestsOf(count: number, options: Parameters<typeof createBackgroundSha256>[0]) {
  const hasher = createBackgroundSha256(options);
  const out = Buffer.alloc(count * SHA256_BYTES);
  for (let index = 0; index < count; index++) hasher.submit(textAt(index), out, index * SHA256_BYTES);
  await hasher.settle();
  return out;
}

function expectDigests(out: Buffer, count: number): void {
  for (let index = 0; index < count; index++) {
    const digest = out.subarray(index * SHA256_BYTES, (index + 1) * SHA256_BYTES);
    expect(digest.toString('hex'), `text ${index}`).toBe(sha256(textAt(index)).toString('hex'));
  }
}

describe('createBackgroundSha256', () => {
  it('gives every text its SHA-256, hashed on the worker or here when the ring is full', async () => {
    // A small ring fills whenever the worker is behind: both paths run.
    expectDigests(await digestsOf(5000, { inlineFirst: 10, slots: 16 }), 5000);
  });

  it('gives the same digests with the default ring and a worker started early', async () => {
    expectDigests(await digestsOf(3000, { inlineFirst: 0 }), 3000);
  });

  it('hashes every text itself when the worker fails, losing none', async () => {
    const failing = "throw new Error('no worker here')";
    expectDigests(await digestsOf(700, { inlineFirst: 0, slots: 64, workerSource: failing }), 700);
  });

  it('hashes at once after settle', async () => {
    const hasher = createBackgroundSha256({ inlineFirst: 0 });
    await hasher.settle();
    const out = Buffer.alloc(SHA256_BYTES);
    hasher.submit('late', out, 0);
    expect(out.equals(sha256('late'))).toBe(true);
  });
});

describe('createHashColumn.pushSha256Of', () => {
  it('gives back the hex SHA-256 of each text once settled, beside hashes pushed as written', async () => {
    const column = createHashColumn();
    const count = 9000; // past the texts hashed before a worker starts
    for (let index = 0; index < count; index++) {
      if (index % 5 === 0) column.push(index % 10 === 0 ? undefined : `written-${index}`);
      else column.pushSha256Of(textAt(index));
    }
    expect(() => column.at(1)).toThrow(/before its hashes were settled/);
    await column.settle();
    for (let index = 0; index < count; index++) {
      const expected =
        index % 5 !== 0
          ? sha256(textAt(index)).toString('hex')
          : index % 10 === 0
            ? undefined
            : `written-${index}`;
      expect(column.at(index), `row ${index}`).toBe(expected);
    }
  });
});
