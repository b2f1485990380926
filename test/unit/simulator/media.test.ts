import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { renderJpeg, renderMp4Stub, renderPng } from '../../../src/simulator/media.js';

describe('simulator result media', () => {
  it('renders a PNG with valid chunk CRCs, varying by label', () => {
    const png = renderPng('job_1/1');
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    let offset = 8;
    const types: string[] = [];
    while (offset < png.length) {
      const length = png.readUInt32BE(offset);
      const body = png.subarray(offset + 4, offset + 8 + length);
      types.push(body.subarray(0, 4).toString('ascii'));
      expect(png.readUInt32BE(offset + 8 + length)).toBe(crc32(body) >>> 0);
      offset += 12 + length;
    }
    expect(types).toEqual(['IHDR', 'tEXt', 'IDAT', 'IEND']);
    expect(renderPng('job_2/1').equals(png)).toBe(false);
  });

  it('renders a JPEG framed by SOI/EOI with a baseline frame header', () => {
    const jpeg = renderJpeg('job_1/1');
    expect([...jpeg.subarray(0, 2)]).toEqual([0xff, 0xd8]);
    expect([...jpeg.subarray(-2)]).toEqual([0xff, 0xd9]);
    expect(jpeg.includes(Buffer.from([0xff, 0xc0, 0x00, 0x0b, 8, 0, 8, 0, 8]))).toBe(true);
    expect(renderJpeg('job_2/1').equals(jpeg)).toBe(false);
  });

  it('renders an MP4 header stub', () => {
    expect(renderMp4Stub('v').subarray(4, 8).toString('ascii')).toBe('ftyp');
  });
});
