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
  return `${text} (account key ${core.options.apiKey}, legacy key ${core.options.legacyApiKey})`;
}

/**
 * `/__results` or, with `echoApiKey`, `/__results/k/<api key>`: a result URL that holds the key, and
 * is served only with it, so a client must fetch the real URL however it stores it.
 */
export function resultPathPrefix(core: SimulatorCore): string {
  return core.options.echoApiKey ? `/__results/k/${encodeURIComponent(core.options.apiKey)}` : '/__results';
}
