/**
 * The one place where the account's keys are taken out of what the service says (issue #24.6). A
 * service may echo the key it was sent in an error text or build it into a result URL; whatever is read
 * from it (answers, error texts, client events) passes through here before anything else sees it, so
 * no writer (journal, snapshot, log, report, results index, JUnit, step summary, stderr) needs its own.
 *
 * A result URL that held a key cannot be fetched in its redacted form: the real URL is kept in this
 * process's memory only, under its redacted form, for the download. It is never written anywhere; after
 * a restart the job is polled again for a fresh URL (see the client's `downloadFile`).
 */
import { createSecretMatcher, type SecretMatcher } from '../redact-secrets.js';
import { REDACTED } from '../redacted.js';
import { ServiceError } from './errors.js';

/** Shorter values are not redacted: replacing "1" or "a" would mangle every answer. */
const MIN_SECRET_LENGTH = 6;

export interface SecretRedactor {
  /** Adds a secret (the balance's legacy `apiKey`, spec 2.5) from now on. */
  addSecret: (value: unknown) => void;
  /** Every secret known so far. */
  secrets: () => readonly string[];
  /**
   * `text` with each secret replaced by `[REDACTED]`, in every form a text can carry it in (encoded,
   * escaped, in any letter case, in base64: see `createSecretMatcher`).
   */
  redactText: (text: string) => string;
  /**
   * A copy of `value` with each secret inside its strings (deep: lists and maps) replaced; the same
   * object when none held one. A redacted http(s) URL is remembered with its real form.
   */
  redactData: <T>(value: T) => T;
  /** The same error with each secret taken out of its message, hint, path and service fields. */
  redactError: (error: unknown) => unknown;
  /** The real URL of a result URL this redactor redacted, while this process lives. */
  realUrl: (url: string) => string | undefined;
}

/** Whether `url` is a URL with a secret replaced (and so not fetchable as it is). */
export function isRedactedUrl(url: string): boolean {
  return url.includes(REDACTED) || url.includes(encodeURIComponent(REDACTED));
}

/** A redactor that knows `apiKey` (the `X-Api-Key` value) from the start. */
export function createSecretRedactor(apiKey: string): SecretRedactor {
  const secrets: string[] = [];
  let matcher: SecretMatcher = (text) => text;
  const realUrls = new Map<string, string>();

  function addSecret(value: unknown): void {
    if (typeof value !== 'string') return;
    const secret = value.trim();
    if (secret.length < MIN_SECRET_LENGTH || secrets.includes(secret)) return;
    secrets.push(secret);
    matcher = createSecretMatcher(secrets);
  }

  function redactText(text: string): string {
    return matcher(text);
  }

  function redactString(text: string): string {
    const result = redactText(text);
    if (result !== text && /^https?:\/\//i.test(text)) realUrls.set(result, text);
    return result;
  }

  function redactData<T>(value: T): T {
    if (typeof value === 'string') return redactString(value) as T;
    if (Array.isArray(value)) {
      const items = value.map((item: unknown) => redactData(item));
      return (items.some((item, index) => item !== value[index]) ? items : value) as T;
    }
    if (value !== null && typeof value === 'object') {
      let changed = false;
      const copy: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        const newKey = redactText(key);
        const newItem = redactData(item);
        if (newKey !== key || newItem !== item) changed = true;
        copy[newKey] = newItem;
      }
      return (changed ? copy : value) as T;
    }
    return value;
  }

  function redactError(error: unknown): unknown {
    if (!(error instanceof Error)) return error;
    // Errors are the client's own, freshly built: their fields are rewritten in place.
    const fields = error as unknown as Record<string, unknown>;
    const names = ['message', 'stack', 'hint'];
    if (error instanceof ServiceError) names.push('path', 'serviceMessage', 'errorCode');
    for (const name of names) {
      const text = fields[name];
      if (typeof text === 'string') {
        const redacted = redactText(text);
        if (redacted !== text) Object.defineProperty(error, name, { value: redacted, writable: true });
      }
    }
    if (error.cause !== undefined) redactError(error.cause);
    return error;
  }

  addSecret(apiKey);
  return {
    addSecret,
    secrets: () => secrets,
    redactText,
    redactData,
    redactError,
    realUrl: (url) => realUrls.get(url),
  };
}
