import { createPainter, type Placeholder } from './media.js';

/**
 * A small, playable MP4 placeholder: H.264 Baseline in which every macroblock is I_PCM (raw samples,
 * so no transform or entropy coder is needed), one IDR frame per half second, the prompt's pattern
 * sliding from frame to frame: 2 s, about 93 KB at 160×96. Browsers play it and show its first frame
 * as the poster.
 */

const LONG_SIDE = 160;
const FRAMES = 4;
const FRAME_MS = 500;

/** Width and height for an aspect ratio, multiples of 16 (macroblocks), the long side 160. */
export function videoSize(aspectRatio: string | undefined): { width: number; height: number } {
  const match = /^\s*(\d+(?:\.\d+)?)\s*:\s*(\d+(?:\.\d+)?)\s*$/.exec(aspectRatio ?? '16:9');
  const w = Number(match?.[1] ?? 16);
  const h = Number(match?.[2] ?? 9);
  const short = (ratio: number) => Math.max(16, Math.round((LONG_SIDE * ratio) / 16) * 16);
  if (!(w > 0 && h > 0)) return { width: LONG_SIDE, height: short(9 / 16) };
  return w >= h ? { width: LONG_SIDE, height: short(h / w) } : { width: short(w / h), height: LONG_SIDE };
}

/** Writes bits MSB first; Exp-Golomb codes for the H.264 syntax elements ue(v) and se(v). */
class BitWriter {
  private readonly bytes: number[] = [];
  private current = 0;
  private count = 0;

  bits(value: number, length: number): this {
    for (let bit = length - 1; bit >= 0; bit--) {
      this.current = (this.current << 1) | ((value >>> bit) & 1);
      if (++this.count === 8) this.flush();
    }
    return this;
  }

  ue(value: number): this {
    const code = value + 1;
    const length = Math.floor(Math.log2(code));
    return this.bits(0, length).bits(code, length + 1);
  }

  se(value: number): this {
    return this.ue(value <= 0 ? -2 * value : 2 * value - 1);
  }

  align(): this {
    while (this.count !== 0) this.bits(0, 1);
    return this;
  }

  byte(value: number): this {
    if (this.count === 0) this.bytes.push(value & 0xff);
    else this.bits(value, 8);
    return this;
  }

  /** rbsp_trailing_bits: a one, then zeros to the byte boundary. */
  trailing(): Buffer {
    this.bits(1, 1).align();
    return Buffer.from(this.bytes);
  }

  private flush(): void {
    this.bytes.push(this.current & 0xff);
    this.current = 0;
    this.count = 0;
  }
}

/** A NAL unit: header byte, then the payload with emulation prevention bytes (00 00 0x → 00 00 03 0x). */
function nal(header: number, rbsp: Buffer): Buffer {
  const out = Buffer.alloc(1 + rbsp.length + Math.ceil(rbsp.length / 2));
  out[0] = header;
  let length = 1;
  let zeros = 0;
  for (const byte of rbsp) {
    if (zeros >= 2 && byte <= 3) {
      out[length++] = 3;
      zeros = 0;
    }
    out[length++] = byte;
    zeros = byte === 0 ? zeros + 1 : 0;
  }
  return out.subarray(0, length);
}

function sequenceParameterSet(width: number, height: number): Buffer {
  const w = new BitWriter().bits(66, 8).bits(0xc0, 8).bits(30, 8); // Baseline (constrained), level 3.0
  w.ue(0).ue(0).ue(2).ue(0).bits(0, 1); // sps id, log2_max_frame_num-4, poc type 2, no refs, no gaps
  w.ue(width / 16 - 1).ue(height / 16 - 1);
  w.bits(1, 1).bits(1, 1).bits(0, 1).bits(0, 1); // frames only, direct 8x8, no cropping, no VUI
  return nal(0x67, w.trailing());
}

function pictureParameterSet(): Buffer {
  const w = new BitWriter().ue(0).ue(0).bits(0, 1).bits(0, 1).ue(0).ue(0).ue(0); // CAVLC, one slice group
  w.bits(0, 1).bits(0, 2).se(0).se(0).se(0); // no weighted prediction, qp 26
  w.bits(0, 1).bits(0, 1).bits(0, 1); // no deblocking control, no constrained intra, no redundant pictures
  return nal(0x68, w.trailing());
}

/** One IDR picture, every macroblock I_PCM (mb_type 25), samples from `paint`. */
function idrSlice(
  width: number,
  height: number,
  frame: number,
  paint: (x: number, y: number) => readonly [number, number, number],
): Buffer {
  const w = new BitWriter()
    .ue(0)
    .ue(7)
    .ue(0)
    .bits(0, 4)
    .ue(frame % 2); // all-I slice, frame_num 0, idr_pic_id
  w.bits(0, 1).bits(0, 1).se(0); // dec_ref_pic_marking of an IDR, slice_qp_delta
  // The painter returns one of two constant colours: convert each to YCbCr once.
  const converted = new Map<readonly number[], number[]>();
  const ycc = (x: number, y: number): number[] => {
    const rgb = paint(x, y);
    let found = converted.get(rgb);
    if (found === undefined) {
      const [r, g, b] = rgb;
      found = [
        0.299 * r + 0.587 * g + 0.114 * b,
        128 - 0.168736 * r - 0.331264 * g + 0.5 * b,
        128 + 0.5 * r - 0.418688 * g - 0.081312 * b,
      ].map((value) => Math.min(255, Math.max(1, Math.round(value))));
      converted.set(rgb, found);
    }
    return found;
  };
  for (let my = 0; my < height / 16; my++) {
    for (let mx = 0; mx < width / 16; mx++) {
      w.ue(25).align();
      for (let y = 0; y < 16; y++)
        for (let x = 0; x < 16; x++) w.byte(ycc(mx * 16 + x, my * 16 + y)[0] ?? 128);
      for (const plane of [1, 2]) {
        for (let y = 0; y < 8; y++) {
          for (let x = 0; x < 8; x++) w.byte(ycc(mx * 16 + x * 2, my * 16 + y * 2)[plane] ?? 128);
        }
      }
    }
  }
  return nal(0x65, w.trailing());
}

function box(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length + 8, 0);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, body]);
}

function fullBox(type: string, version: number, flags: number, ...parts: Buffer[]): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(((version << 24) | flags) >>> 0);
  return box(type, head, ...parts);
}

function u32(...values: number[]): Buffer {
  const out = Buffer.alloc(values.length * 4);
  values.forEach((value, index) => out.writeUInt32BE(value >>> 0, index * 4));
  return out;
}

function u16(...values: number[]): Buffer {
  const out = Buffer.alloc(values.length * 2);
  values.forEach((value, index) => out.writeUInt16BE(value & 0xffff, index * 2));
  return out;
}

const MATRIX = u32(0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000);

function movieBox(width: number, height: number, sps: Buffer, pps: Buffer, sizes: number[], offset: number) {
  const duration = sizes.length * FRAME_MS;
  const avcC = box(
    'avcC',
    Buffer.from([1, 66, 0xc0, 30, 0xff, 0xe1]),
    u16(sps.length),
    sps,
    Buffer.from([1]),
    u16(pps.length),
    pps,
  );
  const avc1 = box(
    'avc1',
    Buffer.alloc(6),
    u16(1, 0, 0),
    u32(0, 0, 0),
    u16(width, height),
    u32(0x480000, 0x480000, 0),
    u16(1),
    Buffer.alloc(32),
    u16(0x18, 0xffff),
    avcC,
  );
  const stbl = box(
    'stbl',
    fullBox('stsd', 0, 0, u32(1), avc1),
    fullBox('stts', 0, 0, u32(1, sizes.length, FRAME_MS)),
    fullBox('stsc', 0, 0, u32(1, 1, sizes.length, 1)),
    fullBox('stsz', 0, 0, u32(0, sizes.length, ...sizes)),
    fullBox('stco', 0, 0, u32(1, offset)),
  );
  const minf = box(
    'minf',
    fullBox('vmhd', 0, 1, u16(0, 0, 0, 0)),
    box('dinf', fullBox('dref', 0, 0, u32(1), fullBox('url ', 0, 1))),
    stbl,
  );
  const mdia = box(
    'mdia',
    fullBox('mdhd', 0, 0, u32(0, 0, 1000, duration), u16(0x55c4, 0)),
    fullBox('hdlr', 0, 0, u32(0), Buffer.from('vide', 'latin1'), u32(0, 0, 0), Buffer.from('VideoHandler\0')),
    minf,
  );
  const tkhd = fullBox(
    'tkhd',
    0,
    3,
    u32(0, 0, 1, 0, duration, 0, 0),
    u16(0, 0, 0, 0),
    MATRIX,
    u32(width << 16, height << 16),
  );
  const mvhd = fullBox(
    'mvhd',
    0,
    0,
    u32(0, 0, 1000, duration, 0x10000),
    u16(0x100, 0),
    u32(0, 0),
    MATRIX,
    u32(0, 0, 0, 0, 0, 0, 2),
  );
  return box('moov', mvhd, box('trak', tkhd, mdia));
}

/** A playable MP4 (see the file comment); the label goes into a `free` box, so each file is its own. */
export function renderMp4(input: Placeholder): Buffer {
  const { width, height } = videoSize(input.aspectRatio);
  const sps = sequenceParameterSet(width, height);
  const pps = pictureParameterSet();
  const samples: Buffer[] = [];
  const paint = createPainter(input, width, height);
  for (let frame = 0; frame < FRAMES; frame++) {
    const shift = frame * 8;
    const slice = idrSlice(width, height, frame, (x, y) => paint((x + shift) % width, y));
    samples.push(Buffer.concat([u32(slice.length), slice]));
  }
  const ftyp = box(
    'ftyp',
    Buffer.from('isom', 'latin1'),
    u32(0x200),
    Buffer.from('isomiso2avc1mp41', 'latin1'),
  );
  const free = box('free', Buffer.from(input.label, 'latin1'));
  const sizes = samples.map((sample) => sample.length);
  const draft = movieBox(width, height, sps, pps, sizes, 0);
  const offset = ftyp.length + free.length + draft.length + 8;
  return Buffer.concat([
    ftyp,
    free,
    movieBox(width, height, sps, pps, sizes, offset),
    box('mdat', ...samples),
  ]);
}
