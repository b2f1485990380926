import { hash } from 'node:crypto';
import { Worker } from 'node:worker_threads';

/** SHA-256 digests of many texts, each written where its caller asks by the time {@link settle} resolves. */
export interface BackgroundSha256 {
  /** Hashes `text` (UTF-8) into `target[offset … offset + 32)`: now, or on the second core. */
  submit(text: string, target: Uint8Array, offset: number): void;
  /** Resolves once every digest submitted is written; the worker is gone then. Later submits hash at once. */
  settle(): Promise<void>;
}

export interface BackgroundSha256Options {
  /** Texts hashed at once before a worker is started (a small plan never starts one). @default 4096 */
  inlineFirst?: number;
  /** Texts the ring holds (a power of two). @default 4096 */
  slots?: number;
  /** The worker's script (tests give one that fails); the real one by default. */
  workerSource?: string;
}

export const SHA256_BYTES = 32;
/** Bytes of text a ring slot holds; a longer text is hashed at once. */
const SLOT_BYTES = 2048;
/** Texts published to the worker at a time: one wake-up per batch, not one per text. */
const BATCH = 256;

// The control words shared with the worker (Int32 indexes).
const HEAD = 0; // texts published, written by this thread
const TAIL = 1; // texts hashed, written by the worker
const CLOSED = 2; // 1 once nothing more comes
/** How long the idle worker sleeps before it looks again (ms): this thread never wakes it but at the end. */
const POLL_MS = 1;

/**
 * The worker: hashes the ring's texts in order, each digest into its slot, then moves `TAIL` on; idle,
 * it sleeps a millisecond at a time. Waking it for each batch (`Atomics.notify`) cost this thread more
 * than the hashes it handed over (`--cpu-prof`): now only the end wakes it.
 */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { hash } = require('node:crypto');
const ctl = new Int32Array(workerData.control);
const texts = Buffer.from(workerData.texts);
const lengths = new Int32Array(workerData.lengths);
const digests = Buffer.from(workerData.digests);
const mask = lengths.length - 1;
let tail = 0;
for (;;) {
  const head = Atomics.load(ctl, ${HEAD});
  while (tail < head) {
    const slot = tail & mask;
    const start = slot * ${SLOT_BYTES};
    digests.set(hash('sha256', texts.subarray(start, start + lengths[slot]), 'buffer'), slot * ${SHA256_BYTES});
    tail++;
    Atomics.store(ctl, ${TAIL}, tail);
  }
  if (Atomics.load(ctl, ${CLOSED}) === 1 && tail === Atomics.load(ctl, ${HEAD})) break;
  Atomics.wait(ctl, ${HEAD}, head, ${POLL_MS});
}
`;

/**
 * SHA-256 of many short texts, on the machine's second core once there are many. `crypto.hash` costs
 * ~1.5 µs a call whatever the text's length (OpenSSL's per-call set-up; the digest itself is ~0.2 µs
 * with SHA instructions): 1,000,000 plan jobs' identity hashes were the largest item of
 * `runner plan --format json` (`--cpu-prof`). Here this thread only copies each text's UTF-8 into a
 * ring of shared memory (a few hundred ns) and a worker hashes it; when the ring is full (the worker
 * is behind, or never started) or a text does not fit a slot, the text is hashed here at once, so the
 * two threads share the work and a worker that fails costs time, never a digest. The digests are the
 * same bytes `hash('sha256', text)` gives, whoever computes them.
 */
export function createBackgroundSha256(options: BackgroundSha256Options = {}): BackgroundSha256 {
  const inlineFirst = options.inlineFirst ?? 4096;
  const slots = options.slots ?? 4096;
  const mask = slots - 1;
  let submitted = 0;
  let ring: Ring | undefined;
  let settled = false;
  /** Texts given to the ring; `published` of them are visible to the worker. */
  let head = 0;
  let published = 0;

  const hashNow = (text: string, target: Uint8Array, offset: number): void => {
    target.set(hash('sha256', text, 'buffer'), offset);
  };
  const publish = (r: Ring): void => {
    published = head;
    Atomics.store(r.control, HEAD, head);
  };
  /** Copies the digest of the text in `slot` (hashed by the worker) to where it was asked for. */
  const harvest = (r: Ring, slot: number): void => {
    const at = slot * SHA256_BYTES;
    r.targets[slot]!.set(r.digests.subarray(at, at + SHA256_BYTES), r.offsets[slot]);
    r.targets[slot] = undefined;
  };

  return {
    submit(text, target, offset) {
      submitted++;
      if (settled || submitted <= inlineFirst) return hashNow(text, target, offset);
      ring ??= startRing(slots, options.workerSource ?? WORKER_SOURCE);
      // A slot is free once the worker is past the text it last held (whose digest is then taken).
      if (head - Atomics.load(ring.control, TAIL) >= slots) return hashNow(text, target, offset);
      // Surely fits in 3 bytes a UTF-16 unit; a longer text is measured.
      if (text.length * 3 > SLOT_BYTES && Buffer.byteLength(text) > SLOT_BYTES) {
        return hashNow(text, target, offset);
      }
      const slot = head & mask;
      if (ring.targets[slot] !== undefined) harvest(ring, slot);
      ring.lengths[slot] = ring.texts.write(text, slot * SLOT_BYTES, SLOT_BYTES, 'utf8');
      ring.targets[slot] = target;
      ring.offsets[slot] = offset;
      head++;
      if (head - published >= BATCH) publish(ring);
    },
    async settle() {
      if (settled) return;
      settled = true;
      const r = ring;
      if (r === undefined) return;
      publish(r);
      Atomics.store(r.control, CLOSED, 1);
      Atomics.notify(r.control, HEAD);
      r.worker.ref();
      await r.exited;
      // Texts the worker did not hash (it failed) are hashed here, from the ring's bytes.
      const tail = Atomics.load(r.control, TAIL);
      for (let n = Math.max(0, head - slots); n < head; n++) {
        const slot = n & mask;
        if (n >= tail) {
          const start = slot * SLOT_BYTES;
          const text = r.texts.subarray(start, start + r.lengths[slot]!);
          r.digests.set(hash('sha256', text, 'buffer'), slot * SHA256_BYTES);
        }
        harvest(r, slot);
      }
    },
  };
}

interface Ring {
  worker: Worker;
  /** Resolves when the worker has stopped, well or not. */
  exited: Promise<void>;
  control: Int32Array;
  texts: Buffer;
  lengths: Int32Array;
  digests: Buffer;
  /** Where each slot's digest goes (`undefined`: taken already, or never used). */
  targets: (Uint8Array | undefined)[];
  offsets: Int32Array;
}

function startRing(slots: number, source: string): Ring {
  const shared = {
    control: new SharedArrayBuffer(8 * Int32Array.BYTES_PER_ELEMENT),
    texts: new SharedArrayBuffer(slots * SLOT_BYTES),
    lengths: new SharedArrayBuffer(slots * Int32Array.BYTES_PER_ELEMENT),
    digests: new SharedArrayBuffer(slots * SHA256_BYTES),
  };
  const worker = new Worker(source, { eval: true, workerData: shared });
  // Never what keeps the process alive: `settle` holds it while it waits for the last digests.
  worker.unref();
  const exited = new Promise<void>((resolve) => {
    worker.once('exit', () => resolve());
    // A failed worker also exits; its texts are hashed by `settle`.
    worker.on('error', () => undefined);
  });
  return {
    worker,
    exited,
    control: new Int32Array(shared.control),
    texts: Buffer.from(shared.texts),
    lengths: new Int32Array(shared.lengths),
    digests: Buffer.from(shared.digests),
    targets: new Array<Uint8Array | undefined>(slots).fill(undefined),
    offsets: new Int32Array(slots),
  };
}
