import { UsageError } from '../../errors.js';

/**
 * Reads a numeric flag. cac hands over numbers or strings; anything that is not a finite number within
 * bounds is a usage error naming the flag, the bounds and the value received.
 */
export function parseNumberOption(
  flag: string,
  value: unknown,
  bounds: { min?: number; max?: number; integer?: boolean } = {},
): number | undefined {
  if (value === undefined) return undefined;
  const number = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN;
  const { min = -Infinity, max = Infinity, integer = false } = bounds;
  if (!Number.isFinite(number) || number < min || number > max || (integer && !Number.isInteger(number))) {
    const what = integer ? 'an integer' : 'a number';
    const range =
      min === -Infinity && max === Infinity
        ? what
        : max === Infinity
          ? `${what} of at least ${min}`
          : min === -Infinity
            ? `${what} of at most ${max}`
            : `${what} from ${min} to ${max}`;
    // A number as written reads plainly (`received 8`); anything else is quoted (`received "abc"`).
    const received =
      typeof value === 'string' && Number.isFinite(Number(value)) ? value : JSON.stringify(value);
    throw new UsageError(`--${flag} expects ${range}, received ${received}.`);
  }
  return number;
}

/**
 * Reads a string flag. Repeated flags arrive as arrays (the last wins); flags declared with
 * `type: [String]` keep "0012" as written, where cac would otherwise turn it into 12.
 */
export function parseStringOption(value: unknown): string | undefined {
  const last: unknown = Array.isArray(value) ? value[value.length - 1] : value;
  if (typeof last === 'string') return last;
  if (typeof last === 'number' || typeof last === 'boolean') return String(last);
  return undefined;
}

/** `--poll-interval 4000` or `--poll-interval 3000-5000` (milliseconds). */
export function readPollInterval(value: unknown): readonly [number, number] | undefined {
  const text = parseStringOption(value);
  if (text === undefined) return undefined;
  const match = /^(\d+)(?:-(\d+))?$/.exec(text.trim());
  const min = Number(match?.[1]);
  const max = match?.[2] === undefined ? min : Number(match[2]);
  if (match === null || max < min) {
    throw new UsageError(`--poll-interval expects milliseconds, "4000" or "3000-5000"; received "${text}".`);
  }
  return [min, max];
}

const UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, kb: 1024, m: 1024 ** 2, mb: 1024 ** 2 };
UNITS.g = 1024 ** 3;
UNITS.gb = 1024 ** 3;

/** `2GB`, `500MB`, `64k`, `1048576` (bytes) → bytes. */
export function parseByteSize(flag: string, value: unknown): number | undefined {
  const text = parseStringOption(value);
  if (text === undefined) return undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = UNITS[(match?.[2] ?? '').toLowerCase()];
  const bytes = match === null || unit === undefined ? NaN : Math.floor(Number(match[1]) * unit);
  if (!Number.isFinite(bytes) || bytes < 1) {
    throw new UsageError(
      `--${flag} expects a size such as 2GB, 500MB or 1048576 (bytes); received "${text}".`,
    );
  }
  return bytes;
}
