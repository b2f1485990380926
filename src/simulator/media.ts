import { crc32, deflateSync } from 'node:zlib';
import { hashString } from './random.js';

/**
 * Tiny but valid result files. Bytes vary with the job (colour, an embedded comment) so a client can
 * tell downloads apart and checksum them.
 */

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body) >>> 0);
  return Buffer.concat([length, body, crc]);
}

/** A 16×16 RGBA PNG of one colour derived from `label`, with `label` in a tEXt chunk. */
export function renderPng(label: string): Buffer {
  const size = 16;
  const hash = hashString(label);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8-bit depth, RGBA, deflate, no filter, no interlace
  const row = Buffer.alloc(1 + size * 4);
  for (let x = 0; x < size; x++)
    row.set([hash & 0xff, (hash >>> 8) & 0xff, (hash >>> 16) & 0xff, 255], 1 + x * 4);
  const pixels = Buffer.concat(Array.from({ length: size }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('tEXt', Buffer.from(`Comment\0${label}`, 'latin1')),
    pngChunk('IDAT', deflateSync(pixels)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

function segment(marker: number, payload: number[] | Buffer): Buffer {
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([head, Buffer.from(payload)]);
}

/** Standard luminance DC table (JPEG Annex K.3). */
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

/** An 8×8 grayscale baseline JPEG of one shade derived from `label`, with `label` in a COM segment. */
export function renderJpeg(label: string): Buffer {
  const gray = hashString(label) & 0xff;
  const dc = 8 * (gray - 128); // DC of a flat 8×8 block with quantizer 1
  const category = dc === 0 ? 0 : Math.floor(Math.log2(Math.abs(dc))) + 1;
  const extra =
    category === 0 ? '' : (dc > 0 ? dc : dc - 1 + (1 << category)).toString(2).padStart(category, '0');
  // AC table: EOB = "00" (symbol 0x00), plus one unused symbol so the table has two codes.
  let bits = `${buildCodes(DC_COUNTS, DC_SYMBOLS).get(category) ?? ''}${extra}00`;
  bits = bits.padEnd(Math.ceil(bits.length / 8) * 8, '1');
  const scan: number[] = [];
  for (let i = 0; i < bits.length; i += 8) {
    const byte = parseInt(bits.slice(i, i + 8), 2);
    scan.push(byte);
    if (byte === 0xff) scan.push(0x00);
  }
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    segment(0xfe, Buffer.from(label, 'latin1')),
    segment(0xdb, [0x00, ...new Array<number>(64).fill(1)]),
    segment(0xc0, [8, 0, 8, 0, 8, 1, 1, 0x11, 0]),
    segment(0xc4, [0x00, ...DC_COUNTS, ...DC_SYMBOLS]),
    segment(0xc4, [0x10, 0, 2, ...new Array<number>(14).fill(0), 0x00, 0x01]),
    segment(0xda, [1, 1, 0x00, 0, 63, 0]),
    Buffer.from(scan),
    Buffer.from([0xff, 0xd9]),
  ]);
}

/** An MP4 file header (`ftyp` + `free` boxes): recognisable as MP4 but not playable. */
export function renderMp4Stub(label: string): Buffer {
  const ftyp = Buffer.concat([
    Buffer.from([0, 0, 0, 0x18]),
    Buffer.from('ftypisom\0\0\x02\0isommp41', 'latin1'),
  ]);
  const text = Buffer.from(label, 'latin1');
  const free = Buffer.alloc(8);
  free.writeUInt32BE(8 + text.length, 0);
  free.write('free', 4, 'ascii');
  return Buffer.concat([ftyp, free, text]);
}

export const CONTENT_TYPES = { png: 'image/png', jpeg: 'image/jpeg', mp4: 'video/mp4' } as const;
