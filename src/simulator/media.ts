import { crc32, deflateSync } from 'node:zlib';
import { hashString } from './random.js';

/**
 * Result files of the simulator: real, small images that look like placeholders of what was asked for.
 * The size follows the requested `aspectRatio`; the colours and the pattern come from the prompt, so the
 * variations of a matrix (a prompt per cell) are visibly different in a report's grid. The `label`
 * (seed, job id, result index) goes into a comment, so every file's bytes and checksum are its own.
 */
export interface Placeholder {
  /** Unique per result file; written into the file's comment. */
  label: string;
  prompt?: string | undefined;
  /** `"16:9"`, `"1:1"`, … (the image endpoint's param); square when absent or not W:H. */
  aspectRatio?: string | undefined;
  /**
   * How many times the prompt was generated before: a regenerated job (a reviewer's reject) gets
   * other colours and pattern, as a real model draws another picture. Absent or 0: the first.
   */
  generation?: number | undefined;
  /**
   * A PNG of at least this many bytes: padded with a private ancillary chunk (`ruNp`, which every
   * reader skips) before its end, so a large download is still the small placeholder's image.
   */
  padToBytes?: number | undefined;
}

/** The long side of a placeholder, in pixels: big enough to see, small enough to stay cheap. */
const LONG_SIDE = 256;

type Rgb = readonly [number, number, number];

/** Width and height for an aspect ratio, both multiples of 8 (JPEG blocks), the long side 256. */
export function placeholderSize(aspectRatio: string | undefined): { width: number; height: number } {
  const match = /^\s*(\d+(?:\.\d+)?)\s*:\s*(\d+(?:\.\d+)?)\s*$/.exec(aspectRatio ?? '');
  const w = Number(match?.[1] ?? 1);
  const h = Number(match?.[2] ?? 1);
  if (!(w > 0 && h > 0)) return { width: LONG_SIDE, height: LONG_SIDE };
  const short = (ratio: number) => Math.max(8, Math.round((LONG_SIDE * ratio) / 8) * 8);
  return w >= h ? { width: LONG_SIDE, height: short(h / w) } : { width: short(w / h), height: LONG_SIDE };
}

/**
 * A pixel colour function for the prompt: two hues and one of four patterns, all from the prompt's hash.
 * It returns one of two constant colour arrays, so callers may key a lookup table by them.
 */
export function createPainter(
  input: Placeholder,
  width: number,
  height: number,
): (x: number, y: number) => Rgb {
  const source = input.prompt ?? input.label;
  const hash = hashString(input.generation ? `${source}\u0000${input.generation}` : source);
  const hue = hash % 360;
  const back = hslToRgb(hue, 0.55, 0.55);
  const front = hslToRgb((hue + 150 + ((hash >>> 9) % 60)) % 360, 0.6, 0.3);
  const pattern = (hash >>> 16) % 4;
  const cycles = 3 + ((hash >>> 20) % 5);
  const period = Math.max(width, height) / cycles;
  const border = 6;
  return (x, y) => {
    if (x < border || y < border || x >= width - border || y >= height - border) return front;
    let on: boolean;
    if (pattern === 0) on = Math.floor(x / period) % 2 === 0;
    else if (pattern === 1) on = (Math.floor(x / period) + Math.floor(y / period)) % 2 === 0;
    else if (pattern === 2)
      on = Math.floor(Math.hypot(x - width / 2, y - height / 2) / (period / 2)) % 2 === 0;
    else on = Math.floor((x + y) / period) % 2 === 0;
    return on ? front : back;
  };
}

function hslToRgb(hue: number, saturation: number, lightness: number): Rgb {
  const chroma = (1 - Math.abs(2 * lightness - 1)) * saturation;
  const h = hue / 60;
  const x = chroma * (1 - Math.abs((h % 2) - 1));
  const [r, g, b] =
    h < 1
      ? [chroma, x, 0]
      : h < 2
        ? [x, chroma, 0]
        : h < 3
          ? [0, chroma, x]
          : h < 4
            ? [0, x, chroma]
            : h < 5
              ? [x, 0, chroma]
              : [chroma, 0, x];
  const m = lightness - chroma / 2;
  return [Math.round((r + m) * 255), Math.round((g + m) * 255), Math.round((b + m) * 255)];
}

function asPlaceholder(input: Placeholder | string): Placeholder {
  return typeof input === 'string' ? { label: input } : input;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body) >>> 0);
  return Buffer.concat([length, body, crc]);
}

/** An RGB PNG placeholder (see {@link Placeholder}), with the label in a tEXt chunk. */
export function renderPng(input: Placeholder | string): Buffer {
  const placeholder = asPlaceholder(input);
  const { width, height } = placeholderSize(placeholder.aspectRatio);
  const paint = createPainter(placeholder, width, height);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit depth, RGB, deflate, no filter, no interlace
  const stride = 1 + width * 3;
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0, offset = y * stride + 1; x < width; x++, offset += 3) {
      const [r, g, b] = paint(x, y);
      pixels[offset] = r;
      pixels[offset + 1] = g;
      pixels[offset + 2] = b;
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('tEXt', Buffer.from(`Comment\0${placeholder.label}`, 'latin1')),
    // Level 1: flat placeholder colours compress well at once, and 8× faster than the default.
    pngChunk('IDAT', deflateSync(pixels, { level: 1 })),
    ...(placeholder.padToBytes === undefined
      ? []
      : [pngChunk('ruNp', Buffer.alloc(placeholder.padToBytes, 0x2e))]),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

function segment(marker: number, payload: number[] | Buffer): Buffer {
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([head, Buffer.from(payload)]);
}

/** Standard luminance DC table (JPEG Annex K.3), used for all three components. */
const DC_COUNTS = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0];
const DC_SYMBOLS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];

/** Canonical Huffman codes as bit strings, by symbol. */
function buildCodes(counts: number[], symbols: number[]): Map<number, string> {
  const codes = new Map<number, string>();
  let code = 0;
  let k = 0;
  counts.forEach((count, index) => {
    for (let i = 0; i < count; i++)
      codes.set(symbols[k++] ?? 0, (code++).toString(2).padStart(index + 1, '0'));
    code <<= 1;
  });
  return codes;
}

const DC_CODES = buildCodes(DC_COUNTS, DC_SYMBOLS);

/** The bits of one DC difference: its category's code, then the value's extra bits (JPEG F.1.2.1). */
function dcBits(diff: number): string {
  const category = diff === 0 ? 0 : Math.floor(Math.log2(Math.abs(diff))) + 1;
  const extra =
    category === 0 ? '' : (diff > 0 ? diff : diff - 1 + (1 << category)).toString(2).padStart(category, '0');
  return `${DC_CODES.get(category) ?? ''}${extra}`;
}

/**
 * A baseline colour JPEG placeholder (see {@link Placeholder}): YCbCr 4:4:4, every 8×8 block flat (DC
 * only, quantizer 1), so the pattern is drawn in 8-pixel blocks. The label goes into a COM segment.
 */
export function renderJpeg(input: Placeholder | string): Buffer {
  const placeholder = asPlaceholder(input);
  const { width, height } = placeholderSize(placeholder.aspectRatio);
  const paint = createPainter(placeholder, width, height);
  const predictors = [0, 0, 0];
  const parts: string[] = [];
  for (let by = 0; by < height / 8; by++) {
    for (let bx = 0; bx < width / 8; bx++) {
      const [r, g, b] = paint(bx * 8 + 4, by * 8 + 4);
      const ycc = [
        0.299 * r + 0.587 * g + 0.114 * b,
        128 - 0.168736 * r - 0.331264 * g + 0.5 * b,
        128 + 0.5 * r - 0.418688 * g - 0.081312 * b,
      ];
      ycc.forEach((value, component) => {
        const dc = 8 * (Math.round(Math.min(255, Math.max(0, value))) - 128); // flat block, quantizer 1
        parts.push(dcBits(dc - (predictors[component] ?? 0)), '00'); // AC: end of block at once
        predictors[component] = dc;
      });
    }
  }
  let bits = parts.join('');
  bits = bits.padEnd(Math.ceil(bits.length / 8) * 8, '1');
  const scan: number[] = [];
  for (let i = 0; i < bits.length; i += 8) {
    const byte = parseInt(bits.slice(i, i + 8), 2);
    scan.push(byte);
    if (byte === 0xff) scan.push(0x00);
  }
  const size = [height >> 8, height & 0xff, width >> 8, width & 0xff];
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    segment(0xfe, Buffer.from(placeholder.label, 'latin1')),
    segment(0xdb, [0x00, ...new Array<number>(64).fill(1)]),
    segment(0xc0, [8, ...size, 3, 1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0]),
    segment(0xc4, [0x00, ...DC_COUNTS, ...DC_SYMBOLS]),
    // AC table: EOB = "00" (symbol 0x00), plus one unused symbol so the table has two codes.
    segment(0xc4, [0x10, 0, 2, ...new Array<number>(14).fill(0), 0x00, 0x01]),
    segment(0xda, [3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 63, 0]),
    Buffer.from(scan),
    Buffer.from([0xff, 0xd9]),
  ]);
}

export const CONTENT_TYPES = { png: 'image/png', jpeg: 'image/jpeg', mp4: 'video/mp4' } as const;
