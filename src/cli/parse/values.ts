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

/**
 * A flag that names a file of this machine (`--report`, `--junit`, `report --out`, `plan --out`, `diff
 * --out`): an `s3://…` (or any other URL) there would be written as a folder named `s3:` in the current
 * directory, so it is refused. A bucket output gets its report and index in the bucket by itself.
 */
export function parseLocalPathOption(flag: string, value: unknown): string | undefined {
  const path = parseStringOption(value);
  if (path !== undefined && /^[a-z][a-z0-9+.-]*:\/\//i.test(path)) {
    throw new UsageError(
      `--${flag} names a file of this machine, not a URL: received ${JSON.stringify(path)}.`,
      {
        hint: path.toLowerCase().startsWith('s3://')
          ? 'With --output s3://bucket/prefix, report.html and results.json/csv are written into the bucket beside the results; give --' +
            flag +
            ' a local path for a copy here.'
          : `Give --${flag} a path on this machine.`,
      },
    );
  }
  return path;
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
