import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { patchAccount } from './accounting.js';
import { matchRoute } from './api-routes.js';
import { collectStats, createSimulatorCore, type SimulatorCore } from './core.js';
import { padData, padText } from './dialect.js';
import { echoKeyInAnswer } from './echo-key.js';
import type { FaultKind } from './faults.js';
import { serveFile, storeBlob } from './files.js';
import {
  answerError,
  BodyTooLargeError,
  isPlainObject,
  parseJsonBody,
  readBody,
  writeAnswer,
  writeDripped,
  writeTruncated,
  type Answer,
} from './http-util.js';
import { countInsideRetryAfter, openRetryAfterWindow } from './retry-after-window.js';
import type { AccountPatch, Simulator, SimulatorOptions } from './types.js';

const API_BASE = '/api/v2';
const MAX_JSON_BYTES = 1024 * 1024;

/**
 * Every API answer as the service words it: the keys echoed when asked (`echoApiKey`) and a `Date`
 * header on the service's own clock (`clockOffsetMs`), from which a client can measure the offset.
 */
function finishAnswer(core: SimulatorCore, answer: Answer): Answer {
  const echoed = echoKeyInAnswer(core, answer);
  const date = new Date(core.now() + core.options.clockOffsetMs).toUTCString();
  return { ...echoed, headers: { ...echoed.headers, date } };
}

function injectFault(core: SimulatorCore, kind: FaultKind, response: ServerResponse): void {
  core.counters.faultsInjected[kind] += 1;
  if (kind === 'reset') {
    response.socket?.destroy();
    return;
  }
  if (kind === 'rateLimit') {
    answerRateLimited(core, response, core.options.retryAfterSeconds);
    return;
  }
  writeAnswer(response, finishAnswer(core, answerError(500, 'internal server error', null)));
}

/** HTTP 429 with `Retry-After: seconds`, which opens the account's window (`requestsInsideRetryAfter`). */
function answerRateLimited(core: SimulatorCore, response: ServerResponse, seconds: number): void {
  openRetryAfterWindow(core, seconds);
  writeAnswer(
    response,
    finishAnswer(core, answerError(429, 'too many requests', null, { 'retry-after': String(seconds) })),
  );
}

function isAuthorized(core: SimulatorCore, request: IncomingMessage): boolean {
  return !core.apiKeyRevoked && request.headers['x-api-key'] === core.options.apiKey;
}

/** Everything under `/api/v2`: count, draw a fault, authenticate, route, answer (or lose the answer). */
async function handleApi(core: SimulatorCore, request: IncomingMessage, response: ServerResponse, url: URL) {
  const method = request.method ?? 'GET';
  const matched = matchRoute(method, url.pathname.slice(API_BASE.length));
  const template = `${method} ${matched?.route.template ?? '(unmatched)'}`;
  core.counters.requests[template] = (core.counters.requests[template] ?? 0) + 1;
  countInsideRetryAfter(core);

  const fault = core.faults.decide(matched?.route.isCreate ?? false);
  if (fault.slowMs > 0) {
    core.counters.faultsInjected.slow += 1;
    await new Promise((resolve) => setTimeout(resolve, fault.slowMs).unref());
  }
  if (fault.kind !== null && !fault.afterProcessing) {
    injectFault(core, fault.kind, response);
    return;
  }
  if (
    core.rateLimit.remaining > 0 &&
    (core.rateLimit.createsOnly !== true || matched?.route.isCreate === true)
  ) {
    core.rateLimit.remaining -= 1;
    core.counters.rateLimitedOnDemand += 1;
    answerRateLimited(core, response, core.rateLimit.retryAfterSeconds);
    return;
  }
  if (!isAuthorized(core, request)) {
    writeAnswer(
      response,
      finishAnswer(core, answerError(401, 'missing or invalid API key (X-Api-Key)', 'UNAUTHORIZED')),
    );
    return;
  }
  if (matched === undefined) {
    writeAnswer(
      response,
      finishAnswer(core, answerError(404, `no such endpoint: ${method} ${url.pathname}`, 'NOT_FOUND')),
    );
    return;
  }
  let body: unknown;
  if (method === 'POST') {
    body = parseJsonBody(await readBody(request, MAX_JSON_BYTES));
    if (body instanceof Error) {
      writeAnswer(response, finishAnswer(core, answerError(400, body.message, 'INVALID_REQUEST')));
      return;
    }
  }
  // Received whole, processed once released, whether or not its sender still waits for the answer.
  const hold = matched.route.isCreate ? core.createHold : undefined;
  if (hold !== undefined) {
    hold.held += 1;
    await hold.released;
  }
  const answer = applyHostile(core, matched.route.handle(core, { params: matched.params, body, url }));
  const { dripPollMs } = core.options.hostile;
  if (fault.kind !== null) injectFault(core, fault.kind, response);
  else if (dripPollMs !== undefined && matched.route.template === '/jobs/{jobId}')
    writeDripped(response, finishAnswer(core, answer), dripPollMs);
  else writeAnswer(response, finishAnswer(core, answer));
}

/** Hostile sizes (issue #11): padded `data` on success, a padded `error` on failure. */
function applyHostile(core: SimulatorCore, answer: Answer): Answer {
  const { hostile } = core.options;
  if (hostile.paddingBytes === undefined && hostile.errorTextBytes === undefined) return answer;
  const json = answer.json as { success?: unknown; data?: unknown; error?: unknown } | undefined;
  if (json === undefined) return answer;
  if (json.success === true) return { ...answer, json: { ...json, data: padData(json.data, hostile) } };
  if (typeof json.error === 'string')
    return { ...answer, json: { ...json, error: padText(json.error, hostile.errorTextBytes) } };
  return answer;
}

/** Test-only inspection and control routes under `/__sim`; no API key. */
async function handleSimControl(
  core: SimulatorCore,
  request: IncomingMessage,
  path: string,
): Promise<Answer> {
  if (path === '/__sim/stats' && request.method === 'GET') return { status: 200, json: collectStats(core) };
  if (path === '/__sim/rate-limit' && request.method === 'POST') {
    const body = parseJsonBody(await readBody(request, MAX_JSON_BYTES));
    const count = isPlainObject(body) ? body.count : undefined;
    const seconds = isPlainObject(body) ? body.retryAfterSeconds : undefined;
    const createsOnly = isPlainObject(body) ? body.createsOnly : undefined;
    if (typeof count !== 'number' || typeof seconds !== 'number' || count < 0 || seconds < 0)
      return answerError(400, 'expected numeric count and retryAfterSeconds');
    if (createsOnly !== undefined && typeof createsOnly !== 'boolean')
      return answerError(400, 'expected createsOnly to be true or false');
    core.rateLimit = {
      remaining: count,
      retryAfterSeconds: seconds,
      ...(createsOnly === true ? { createsOnly } : {}),
    };
    return { status: 200, json: core.rateLimit };
  }
  if (path === '/__sim/revoke-key' && request.method === 'POST') {
    core.apiKeyRevoked = true;
    return { status: 200, json: { revoked: true } };
  }
  if (path === '/__sim/account' && request.method === 'POST') {
    const body = parseJsonBody(await readBody(request, MAX_JSON_BYTES));
    const patch = isPlainObject(body) ? toAccountPatch(body) : undefined;
    if (patch === undefined)
      return answerError(400, 'expected numeric freeCredit/purchasedCredit/subscriptionImageQuota');
    patchAccount(core.account, patch);
    return { status: 200, json: collectStats(core).account };
  }
  return answerError(404, `no such simulator route: ${request.method ?? ''} ${path}`);
}

function toAccountPatch(body: Record<string, unknown>): AccountPatch | undefined {
  const patch: AccountPatch = {};
  for (const key of ['freeCredit', 'purchasedCredit', 'subscriptionImageQuota'] as const) {
    const value = body[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return undefined;
    patch[key] = value;
  }
  if (typeof body.hasPurchased === 'boolean') patch.hasPurchased = body.hasPurchased;
  return patch;
}

async function handleRequest(core: SimulatorCore, request: IncomingMessage, response: ServerResponse) {
  const url = new URL(request.url ?? '/', core.origin);
  const path = url.pathname;
  const isResultLink = path.startsWith('/__results/') || url.searchParams.has('result');
  if (isResultLink && request.headers['x-api-key'] !== undefined) core.counters.resultRequestsWithKey += 1;
  if (path === API_BASE || path.startsWith(`${API_BASE}/`)) {
    await handleApi(core, request, response, url);
    return;
  }
  let answer: Answer;
  if (path.startsWith('/__sim/')) answer = await handleSimControl(core, request, path);
  else if (path.startsWith('/__blob/') && request.method === 'PUT')
    answer = await storeBlob(core, url, request);
  else if ((path.startsWith('/__files/') || path.startsWith('/__results/')) && request.method === 'GET') {
    answer = serveFile(core, path);
    const { dripDownloadMs, truncateDownloadBytes, resultStatus } = core.options.hostile;
    if (resultStatus !== undefined && path.startsWith('/__results/'))
      answer = answerError(resultStatus, 'This request is not authorized to perform this operation.');
    if (dripDownloadMs !== undefined && path.startsWith('/__results/') && answer.status === 200) {
      writeDripped(response, answer, dripDownloadMs);
      return;
    }
    if (truncateDownloadBytes !== undefined && path.startsWith('/__results/') && answer.status === 200) {
      writeTruncated(response, answer, truncateDownloadBytes);
      return;
    }
  } else answer = answerError(404, `not found: ${path}`);
  writeAnswer(response, answer);
}

/**
 * Starts the simulator on 127.0.0.1 (`options.port`, default any free port).
 * @example
 * const sim = await startSimulator({ timeScale: 0.002, seed: 7 });
 * // ... point the client at sim.baseUrl with sim.apiKey ...
 * await sim.close();
 */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const core = createSimulatorCore(options);
  const server = createServer((request, response) => {
    handleRequest(core, request, response).catch((error: unknown) => {
      if (response.headersSent || response.destroyed) return;
      const tooLarge = error instanceof BodyTooLargeError;
      writeAnswer(
        response,
        answerError(tooLarge ? 413 : 500, tooLarge ? 'request body too large' : 'simulator error'),
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  core.origin = `http://127.0.0.1:${port}`;
  return {
    baseUrl: `${core.origin}${API_BASE}`,
    apiKey: core.options.apiKey,
    stats: () => collectStats(core),
    setAccount: (patch) => patchAccount(core.account, patch),
    revokeApiKey: () => {
      core.apiKeyRevoked = true;
    },
    rateLimitNext: (count, retryAfterSeconds, options) => {
      core.rateLimit = {
        remaining: count,
        retryAfterSeconds,
        ...(options?.createsOnly === true ? { createsOnly: true } : {}),
      };
    },
    holdCreates: () => {
      let release = () => undefined as void;
      const hold = { released: new Promise<void>((resolve) => (release = resolve)), held: 0 };
      core.createHold = hold;
      return {
        held: () => hold.held,
        release: () => {
          if (core.createHold === hold) delete core.createHold;
          release();
        },
      };
    },
    setHostile: (hostile) => {
      core.options.hostile = { ...hostile };
    },
    setModelDefault: (slug, field, value) => {
      const config = core.catalog.find((model) => model.slug === slug)?.config;
      const definition = config?.[field];
      if (
        config == null ||
        typeof definition !== 'object' ||
        definition === null ||
        Array.isArray(definition)
      ) {
        throw new Error(`the simulated catalog has no field ${field} on model ${slug}`);
      }
      // A copy: field definitions may be shared between models and between simulators.
      config[field] = { ...definition, default: value };
    },
    close: () => {
      // Keep-alive clients hold sockets open: end them all so close() resolves at once. Idempotent.
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
