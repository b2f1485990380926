import type { SimulatorCore } from './core.js';
import type { Answer } from './http-util.js';

/**
 * The `echoApiKey` option (issue #24.6): a careless service that repeats the account's keys in what it
 * says. Every error text (API error envelopes, a failed job's `error` / `errorMessage` / `step`) ends
 * with both keys, and result URLs carry the API key as a path segment (see {@link resultPathPrefix}).
 */
export function echoKeyInAnswer(core: SimulatorCore, answer: Answer): Answer {
  if (!core.options.echoApiKey || answer.json === undefined) return answer;
  const json = answer.json as { success?: unknown; data?: unknown; error?: unknown };
  if (typeof json.error === 'string')
    return { ...answer, json: { ...json, error: withKeys(core, json.error) } };
  const data = json.data;
  if (json.success !== true || data === null || typeof data !== 'object' || Array.isArray(data))
    return answer;
  const echoed: Record<string, unknown> = { ...(data as Record<string, unknown>) };
  for (const field of ['error', 'errorMessage', 'step']) {
    const text = echoed[field];
    if (typeof text === 'string' && text !== '') echoed[field] = withKeys(core, text);
  }
  return { ...answer, json: { ...json, data: echoed } };
}

function withKeys(core: SimulatorCore, text: string): string {
  const { apiKey, legacyApiKey, echoApiKey } = core.options;
  if (echoApiKey !== 'every-encoding') return `${text} (account key ${apiKey}, legacy key ${legacyApiKey})`;
  const forms = (key: string) => Object.values(keyEncodings(key)).join(' ');
  return `${text} (account key ${forms(apiKey)}, legacy key ${forms(legacyApiKey)})`;
}

/**
 * Each form a careless service was seen to write a key in (issue #32.2), by name: as it is,
 * percent-encoded with lower-case hex (as .NET writes `%2b`), every byte percent-encoded, as HTML
 * character references, as JSON `\u` escapes inside a text, and in base64.
 */
export function keyEncodings(key: string): Record<string, string> {
  const bytes = [...Buffer.from(key, 'utf8')];
  const hex = (code: number, width: number) => code.toString(16).padStart(width, '0');
  return {
    raw: key,
    percentLower: lowerPercent(key),
    percentEveryByte: bytes.map((byte) => `%${hex(byte, 2).toUpperCase()}`).join(''),
    htmlEntities: [...key].map((char) => `&#x${hex(char.codePointAt(0) ?? 0, 2)};`).join(''),
    jsonEscapes: [...key].map((char) => `\\u${hex(char.charCodeAt(0), 4)}`).join(''),
    base64: Buffer.from(key, 'utf8').toString('base64'),
  };
}

/** `encodeURIComponent` with lower-case hex, as .NET's `HttpUtility.UrlEncode` writes it. */
function lowerPercent(text: string): string {
  return encodeURIComponent(text).replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase());
}

/**
 * `/__results` or, with `echoApiKey`, `/__results/k/<api key>`: a result URL that holds the key, and
 * is served only with it, so a client must fetch the real URL however it stores it. With
 * `every-encoding`, the key is percent-encoded with lower-case hex (`%2b`).
 */
export function resultPathPrefix(core: SimulatorCore): string {
  const { echoApiKey, apiKey } = core.options;
  if (echoApiKey === false) return '/__results';
  return `/__results/k/${echoApiKey === 'every-encoding' ? lowerPercent(apiKey) : encodeURIComponent(apiKey)}`;
}
