/**
 * How long one request to the service may take before it is abandoned. Its own module, free of the
 * HTTP client, because the state's late-answer rule counts on it too (`state/late-answer-window.ts`):
 * read from `service/http.ts`, it loaded undici into every command that opens state, `validate` included.
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
