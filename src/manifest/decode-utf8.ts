/** The result of {@link decodeUtf8}: the text, or where the first invalid byte sits. */
export type DecodeResult =
  { ok: true; text: string } | { ok: false; offset: number; byte: number; line: number; col: number };

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Decodes UTF-8 strictly (a leading BOM is dropped). On failure, names the byte offset of the first
 * invalid sequence and its 1-based line and byte column, so the user can find it in an editor.
 */
export function decodeUtf8(bytes: Uint8Array): DecodeResult {
  try {
    return { ok: true, text: decoder.decode(bytes) };
  } catch {
    const offset = findInvalidUtf8(bytes);
    let line = 1;
    let lineStart = 0;
    for (let i = 0; i < offset; i++) {
      if (bytes[i] === 0x0a) {
        line++;
        lineStart = i + 1;
      }
    }
    return { ok: false, offset, byte: bytes[offset] ?? 0, line, col: offset - lineStart + 1 };
  }
}

/** Byte offset of the first invalid UTF-8 sequence (RFC 3629 table 3-7), or the length if none. */
export function findInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let count: number;
    let low = 0x80;
    let high = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) count = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      count = 2;
      if (b === 0xe0) low = 0xa0;
      if (b === 0xed) high = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      count = 3;
      if (b === 0xf0) low = 0x90;
      if (b === 0xf4) high = 0x8f;
    } else return i;
    for (let k = 1; k <= count; k++) {
      const next = bytes[i + k];
      if (next === undefined) return i;
      const min = k === 1 ? low : 0x80;
      const max = k === 1 ? high : 0xbf;
      if (next < min || next > max) return i;
    }
    i += count + 1;
  }
  return bytes.length;
}
