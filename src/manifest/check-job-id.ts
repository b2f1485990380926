/** Longest job id accepted; ids become file names, and most file systems allow 255 bytes. */
export const MAX_JOB_ID_LENGTH = 200;

/**
 * Why an (expanded) job id is not safe as a file name, or undefined when it is. Rejects the empty id,
 * `.`, `/`, `\`, `..`, NUL and other control characters, and ids longer than {@link MAX_JOB_ID_LENGTH}.
 */
export function findUnsafeIdReason(id: string): string | undefined {
  // Nearly every id is safe, and one scan says so; the reasons below are looked for in their order.
  if (id.length <= MAX_JOB_ID_LENGTH && id !== '.' && !UNSAFE_PART.test(id) && id.trim() !== '')
    return undefined;
  if (id.trim() === '') return 'it is empty';
  if (id.length > MAX_JOB_ID_LENGTH)
    return `it is ${id.length} characters long; the maximum is ${MAX_JOB_ID_LENGTH}`;
  if (id.includes('/') || id.includes('\\')) return "it contains a path separator ('/' or '\\')";
  if (id.includes('..')) return "it contains '..'";
  if (id === '.') return "it is '.'";
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is being rejected
  if (/[\u0000-\u001f\u007f]/.test(id)) return 'it contains a control character';
  return undefined;
}

/** What the checks above reject inside an id: a path separator, `..`, a control character. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is being rejected
const UNSAFE_PART = /[/\\\u0000-\u001f\u007f]|\.\./;
