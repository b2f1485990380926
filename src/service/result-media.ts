/**
 * Whether a downloaded "result" is media at all. A result link that points at an API answer, an error
 * page or a login form (issue #24.7: a result URL on the API's own origin gave the balance answer)
 * must not be saved as the job's image: told by the `Content-Type` and by the first bytes.
 */

/** Bytes to read before deciding: enough for every signature below. */
export const MEDIA_HEAD_BYTES = 16;

/** The extension the first bytes show (magic numbers), when they are a known media format. */
export function sniffMediaExtension(head: Uint8Array): string | undefined {
  const ascii = (start: number, end: number) => String.fromCharCode(...head.subarray(start, end));
  if (head[0] === 0x89 && ascii(1, 4) === 'PNG') return '.png';
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return '.jpg';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return '.webp';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WAVE') return '.wav';
  if (ascii(0, 4) === 'GIF8') return '.gif';
  if (ascii(4, 8) === 'ftyp') {
    const brand = ascii(8, 12);
    if (brand.startsWith('qt')) return '.mov';
    if (brand.startsWith('M4A')) return '.m4a';
    return '.mp4';
  }
  if (head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return '.webm';
  if (ascii(0, 3) === 'ID3') return '.mp3';
  return undefined;
}

/** Content types that are never a result file: API answers, pages, scripts. */
function isTextType(contentType: string): boolean {
  return (
    contentType.startsWith('text/') ||
    /^application\/(?:[\w.-]+\+)?(?:json|xml|javascript|ecmascript|x-www-form-urlencoded)\b/.test(
      contentType,
    ) ||
    /\+(?:json|xml)\b/.test(contentType)
  );
}

/** Whether the first bytes (after whitespace and a UTF-8 byte order mark) open JSON, HTML or XML. */
function looksLikeText(head: Uint8Array): 'JSON' | 'HTML or XML' | undefined {
  let at = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  while (
    at < head.length &&
    (head[at] === 0x20 || head[at] === 0x09 || head[at] === 0x0a || head[at] === 0x0d)
  )
    at++;
  const first = head[at];
  if (first === 0x7b || first === 0x5b) return 'JSON';
  if (first === 0x3c) return 'HTML or XML';
  return undefined;
}

/**
 * Why a response is not a result file, or `undefined` when it may be one. A text type (JSON, HTML, XML,
 * …) is refused whatever the bytes; media is known by its signature; bytes of an unknown format pass
 * when they do not open like JSON, HTML or XML and their type is a media one, `octet-stream` or none. The message never
 * quotes the body (an API answer can carry a key).
 */
export function describeNotMedia(contentType: string | undefined, head: Uint8Array): string | undefined {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const shown = type === '' ? 'no content-type' : `content-type ${type}`;
  if (type !== '' && isTextType(type)) return `the answer is not a media file (${shown})`;
  if (sniffMediaExtension(head) !== undefined) return undefined;
  const text = looksLikeText(head);
  if (text !== undefined) return `the answer is not a media file (${shown}; its bytes begin like ${text})`;
  if (type === '' || /^(?:image|video|audio)\//.test(type) || type === 'application/octet-stream')
    return undefined;
  return `the answer is not a known media file (${shown}; its first bytes match no image, video or audio format)`;
}
