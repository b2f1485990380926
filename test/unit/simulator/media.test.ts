import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { inflateSync } from 'node:zlib';
import sharp from 'sharp';
import { parsePromptMarkers } from '../../../src/simulator/markers.js';
import { placeholderSize, renderJpeg, renderPng } from '../../../src/simulator/media.js';
import { renderMp4, videoSize } from '../../../src/simulator/video.js';

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

  it('pads a PNG for [[image-mb:N]] with a private chunk before IEND, the image itself unchanged', async () => {
    expect(parsePromptMarkers('a heron [[image-mb:40]]').imageMiB).toBe(40);
    expect(parsePromptMarkers('a heron [[image-mb:0]]').imageMiB).toBeUndefined();
    const plain = renderPng({ label: 'job_1/1', prompt: 'a heron' });
    const padded = renderPng({ label: 'job_1/1', prompt: 'a heron', padToBytes: 1024 * 1024 });
    expect(padded.length).toBeGreaterThan(1024 * 1024);
    expect(padded.subarray(-12).equals(plain.subarray(-12))).toBe(true);
    const decoded = await Promise.all(
      [plain, padded].map((png) => sharp(png, { failOn: 'error' }).raw().toBuffer()),
    );
    expect(decoded[1]!.equals(decoded[0]!)).toBe(true);
  });

  it('renders a colour JPEG framed by SOI/EOI with a baseline frame header of the requested shape', () => {
    const jpeg = renderJpeg({ label: 'job_1/1', prompt: 'a latte', aspectRatio: '16:9' });
    expect([...jpeg.subarray(0, 2)]).toEqual([0xff, 0xd8]);
    expect([...jpeg.subarray(-2)]).toEqual([0xff, 0xd9]);
    // SOF0: length 17, 8-bit, height 144, width 256, three components
    expect(jpeg.includes(Buffer.from([0xff, 0xc0, 0x00, 0x11, 8, 0, 144, 1, 0, 3]))).toBe(true);
    expect(renderJpeg('job_2/1').equals(renderJpeg('job_1/1'))).toBe(false);
  });

  it('sizes placeholders by aspect ratio, the long side 256 and both sides multiples of 8', () => {
    expect(placeholderSize('16:9')).toEqual({ width: 256, height: 144 });
    expect(placeholderSize('9:16')).toEqual({ width: 144, height: 256 });
    expect(placeholderSize('3:2')).toEqual({ width: 256, height: 168 });
    expect(placeholderSize(undefined)).toEqual({ width: 256, height: 256 });
    expect(placeholderSize('wide')).toEqual({ width: 256, height: 256 });
  });

  it('paints a PNG whose colours come from the prompt, not from the label', () => {
    const pixelsOf = (png: Buffer) => {
      const idat = png.indexOf('IDAT');
      return inflateSync(png.subarray(idat + 4, idat + 4 + png.readUInt32BE(idat - 4)));
    };
    const latte = renderPng({ label: 'job_1/1', prompt: 'A watercolor latte', aspectRatio: '16:9' });
    expect(latte.readUInt32BE(16)).toBe(256);
    expect(latte.readUInt32BE(20)).toBe(144);
    const again = renderPng({ label: 'job_9/1', prompt: 'A watercolor latte', aspectRatio: '16:9' });
    const mocha = renderPng({ label: 'job_1/1', prompt: 'A watercolor mocha', aspectRatio: '16:9' });
    expect(pixelsOf(again).equals(pixelsOf(latte))).toBe(true);
    expect(again.equals(latte)).toBe(false);
    expect(pixelsOf(mocha).equals(pixelsOf(latte))).toBe(false);
  });

  it('renders an MP4 of H.264 frames: ftyp, free (the label), moov with avcC, mdat at the chunk offset', () => {
    const mp4 = renderMp4({ label: 'job_1/1', prompt: 'A teaser', aspectRatio: '16:9' });
    const boxes: string[] = [];
    for (let offset = 0; offset < mp4.length; offset += mp4.readUInt32BE(offset)) {
      boxes.push(mp4.subarray(offset + 4, offset + 8).toString('latin1'));
    }
    expect(boxes).toEqual(['ftyp', 'free', 'moov', 'mdat']);
    expect(mp4.includes(Buffer.from('job_1/1'))).toBe(true);
    const avcC = mp4.indexOf('avcC');
    expect([...mp4.subarray(avcC + 4, avcC + 8)]).toEqual([1, 66, 0xc0, 30]); // Baseline, level 3.0
    const stco = mp4.indexOf('stco');
    const chunkOffset = mp4.readUInt32BE(stco + 12);
    expect(mp4.subarray(chunkOffset - 4, chunkOffset).toString('latin1')).toBe('mdat');
    expect(mp4[chunkOffset + 4]).toBe(0x65); // the first sample is an IDR slice NAL unit
    expect(renderMp4({ label: 'job_2/1', prompt: 'A teaser' }).equals(mp4)).toBe(false);
    expect(videoSize('16:9')).toEqual({ width: 160, height: 96 });
    expect(videoSize('9:16')).toEqual({ width: 96, height: 160 });
  });
});
