import { UsageError } from '../errors.js';
import { parseStringOption } from './parse-options.js';

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
