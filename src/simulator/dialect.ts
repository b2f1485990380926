/**
 * Answer shapes real clients of the service show beyond the spec (api-notes "What real clients show
 * beyond the spec"), and hostile answers, each behind an option so the runner's client meets every
 * shape over real HTTP. With no dialect the simulator answers exactly as before.
 */

/** How the simulator words its answers. Every field is optional; absent means the spec's shape. */
export interface Dialect {
  /**
   * Balance fields: `full` (spec 2.5), `available-only` (`availableCredit` and `apiKey` only),
   * `credits-only` (the older `credits` and `apiKey` only), `none` (no credit figure at all).
   * @default 'full'
   */
  balance?: 'full' | 'available-only' | 'credits-only' | 'none';
  /** Every number of balance, subscription, create and job answers is sent as a string. @default false */
  numbersAsStrings?: boolean;
  /** Create answers: `full` (spec 2.6) or `job-id-only`. @default 'full' */
  creation?: 'full' | 'job-id-only';
  /**
   * The field that names the job in create and poll answers and the job listing: `jobId` (spec 2.6)
   * or `id`, as a public client of the service reads it (issue #20.11). @default 'jobId'
   */
  jobIdField?: 'jobId' | 'id';
  /**
   * Where a completed job names its results: `both` (`resultUrl` + `resultImages`), `result-url`,
   * `result-urls` (array), `result-image` (singular), `none` (no result field at all).
   * @default 'both'
   */
  results?: 'both' | 'result-url' | 'result-urls' | 'result-image' | 'none';
  /** The field that carries a failed job's text: `error`, `errorMessage` or `step`. @default 'error' */
  failureText?: 'error' | 'errorMessage' | 'step';
  /** The status word of a failed job, e.g. `failed`, `cancelled`, `FAILED`. @default 'error' */
  failedStatus?: string;
  /** Quota `capability`: the category `image` or the image model's slug. @default 'category' */
  quotaCapability?: 'category' | 'model-slug';
  /** `AGENT_QUEUE_FULL` as HTTP 429 with `Retry-After`, or as HTTP 200 `success:false` without it. @default 'http-429' */
  queueFull?: 'http-429' | 'http-200';
  /**
   * `GET /account/subscription`: `normal`, `missing` (404 like an unknown endpoint) or `odd`
   * (`maxConcurrentJobs` is not a number). @default 'normal'
   */
  subscription?: 'normal' | 'missing' | 'odd';
  /** `maxConcurrentJobs` the subscription reports. @default concurrencyLimit */
  maxConcurrentJobs?: number;
  /**
   * The `creditCost` `GET /models` shows, per model slug, whatever the model really costs: any JSON
   * value (`-30`, `0`, `"free"`, `null`). Creates are still charged the real price (issue #24.2).
   */
  catalogCosts?: Record<string, unknown>;
  /**
   * The `creditCost` every create answer and polled job reports instead of what was charged (`-1000`,
   * `"lots"`, `null`); the account is still charged the real price (issue #24.2).
   */
  reportedCost?: unknown;
}

/** Hostile answers (issue #11): huge and slow bodies. */
export interface HostileOptions {
  /** Pads every failure text (a failed job's text and every API error envelope) to this many bytes. */
  errorTextBytes?: number;
  /** Adds an unknown `padding` field of this many bytes to every successful API answer's `data`. */
  paddingBytes?: number;
  /** Sends every `GET /jobs/{id}` answer one byte per this many ms (real time, not scaled). */
  dripPollMs?: number;
  /** Sends every result file one byte per this many ms (real time, not scaled). */
  dripDownloadMs?: number;
  /**
   * Any value: a completed job's result links point into the API on its own origin,
   * `/api/v2/account/balance?result=<jobId>/<n>` (issue #24.7), so a client that sends its key there
   * reads the balance answer (with the legacy key) as the "image".
   */
  resultsOnApi?: number;
  /** Cuts every result file after this many bytes: the full `content-length`, then the socket closes. */
  truncateDownloadBytes?: number;
  /** Every result file answers with this HTTP status and a JSON error (e.g. 403 of an expired link). */
  resultStatus?: number;
}

type Json = Record<string, unknown>;

/** The balance answer in the dialect's shape (the `apiKey` stays: clients must drop it). */
export function shapeBalance(full: Json, dialect: Dialect): Json {
  const keep = (fields: string[]): Json =>
    Object.fromEntries(fields.filter((field) => field in full).map((field) => [field, full[field]]));
  let shaped: Json;
  switch (dialect.balance ?? 'full') {
    case 'available-only':
      shaped = keep(['availableCredit', 'apiKey']);
      break;
    case 'credits-only':
      shaped = { credits: full.availableCredit, apiKey: full.apiKey };
      break;
    case 'none':
      shaped = keep(['hasPurchased', 'apiKey', 'topupMemo']);
      break;
    case 'full':
      shaped = full;
  }
  return maybeStringify(shaped, dialect);
}

/** The subscription answer, or `undefined` when the dialect has no such endpoint. */
export function shapeSubscription(
  full: { tier: string; maxConcurrentJobs: number; quotas: { capability: string; remaining: number }[] },
  dialect: Dialect,
  imageModelSlug: string,
): Json | undefined {
  if (dialect.subscription === 'missing') return undefined;
  const quotas = full.quotas.map((quota) => ({
    ...quota,
    capability:
      dialect.quotaCapability === 'model-slug' && quota.capability === 'image'
        ? imageModelSlug
        : quota.capability,
  }));
  const maxConcurrentJobs: unknown =
    dialect.subscription === 'odd' ? 'unlimited' : (dialect.maxConcurrentJobs ?? full.maxConcurrentJobs);
  const subscription = maybeStringify({ ...full, maxConcurrentJobs, quotas }, dialect);
  return { subscription };
}

/** The create answer in the dialect's shape. */
export function shapeCreation(full: Json, dialect: Dialect): Json {
  const shaped = dialect.creation === 'job-id-only' ? { jobId: full.jobId } : full;
  return rewriteReportedCost(maybeStringify(renameJobId(shaped, dialect), dialect), dialect);
}

/** The model list with the dialect's `catalogCosts` shown instead of the real prices. */
export function shapeModels<T extends { slug: string }>(models: T[], dialect: Dialect): T[] {
  const costs = dialect.catalogCosts;
  if (costs === undefined) return models;
  return models.map((model) =>
    Object.hasOwn(costs, model.slug) ? { ...model, creditCost: costs[model.slug] } : model,
  );
}

function rewriteReportedCost(answer: Json, dialect: Dialect): Json {
  return 'reportedCost' in dialect && 'creditCost' in answer
    ? { ...answer, creditCost: dialect.reportedCost }
    : answer;
}

/** The polled job record in the dialect's shape (`record` is the spec-shaped record of `describeJob`). */
export function shapeJobRecord(record: Json, dialect: Dialect, hostile: HostileOptions): Json {
  const shaped: Json = { ...record };
  if (shaped.status === 'error') {
    shaped.status = dialect.failedStatus ?? 'error';
    const text = padText(typeof shaped.error === 'string' ? shaped.error : '', hostile.errorTextBytes);
    const field = dialect.failureText ?? 'error';
    if (field === 'error') {
      if (text !== shaped.error) shaped.error = text;
    } else {
      shaped.error = null;
      shaped[field] = text;
    }
  }
  if (hostile.resultsOnApi !== undefined && shaped.status === 'complete') pointResultsAtApi(shaped);
  const results = dialect.results ?? 'both';
  if (shaped.status === 'complete' && results !== 'both') {
    const urls = (shaped.resultImages as string[] | null) ?? [];
    delete shaped.resultUrl;
    delete shaped.resultImages;
    switch (results) {
      case 'result-url':
        shaped.resultUrl = urls[0];
        break;
      case 'result-urls':
        shaped.resultUrls = urls;
        break;
      case 'result-image':
        shaped.resultImage = urls[0];
        break;
      case 'none':
        shaped.output = { note: 'stored elsewhere' };
        break;
    }
  }
  return rewriteReportedCost(maybeStringify(renameJobId(shaped, dialect), dialect), dialect);
}

/** `resultsOnApi`: each `/__results/<jobId>/<n>.<ext>` link becomes a balance request on the API. */
function pointResultsAtApi(record: Json): void {
  const move = (url: unknown): unknown => {
    if (typeof url !== 'string') return url;
    const parsed = new URL(url);
    const result = parsed.pathname.replace(/^\/__results\//, '').replace(/\.\w+$/, '');
    return `${parsed.origin}/api/v2/account/balance?result=${result}`;
  };
  record.resultUrl = move(record.resultUrl);
  if (Array.isArray(record.resultImages)) record.resultImages = record.resultImages.map(move);
}

/** The answer with `jobId` renamed to `id` when the dialect names the job so (first, as a client sees it). */
function renameJobId(answer: Json, dialect: Dialect): Json {
  if (dialect.jobIdField !== 'id' || !('jobId' in answer)) return answer;
  const { jobId, ...rest } = answer;
  return { id: jobId, ...rest };
}

/** An error message padded to the hostile size, if any. */
export function padText(text: string, bytes: number | undefined): string {
  if (bytes === undefined || text.length >= bytes) return text;
  return text + ' '.padEnd(bytes - text.length, 'x');
}

/** Adds the hostile `padding` field to a success answer's data object. */
export function padData(data: unknown, hostile: HostileOptions): unknown {
  if (hostile.paddingBytes === undefined || data === null || typeof data !== 'object' || Array.isArray(data))
    return data;
  return { ...(data as Json), padding: 'p'.repeat(hostile.paddingBytes) };
}

function maybeStringify(value: Json, dialect: Dialect): Json {
  return dialect.numbersAsStrings === true ? (stringifyNumbers(value) as Json) : value;
}

/** Every number, at any depth, as its decimal string. */
export function stringifyNumbers(value: unknown): unknown {
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return value.map(stringifyNumbers);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, stringifyNumbers(item)]));
  }
  return value;
}

const DIALECT_VALUES: Record<string, readonly string[]> = {
  balance: ['full', 'available-only', 'credits-only', 'none'],
  creation: ['full', 'job-id-only'],
  jobIdField: ['jobId', 'id'],
  results: ['both', 'result-url', 'result-urls', 'result-image', 'none'],
  failureText: ['error', 'errorMessage', 'step'],
  quotaCapability: ['category', 'model-slug'],
  queueFull: ['http-429', 'http-200'],
  subscription: ['normal', 'missing', 'odd'],
};

/**
 * Parses `balance=credits-only,numbersAsStrings,results=result-image,failedStatus=cancelled` (the
 * `runner simulate --dialect` flag). Returns the problem text for an unreadable part.
 */
export function parseDialectSpec(spec: string): Dialect | string {
  const dialect: Dialect = {};
  for (const part of spec
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)) {
    const [name = '', value] = part.split('=');
    if (name === 'numbersAsStrings' && value === undefined) {
      dialect.numbersAsStrings = true;
    } else if (name === 'failedStatus' && value !== undefined && value !== '') {
      dialect.failedStatus = value;
    } else if (name === 'maxConcurrentJobs' && value !== undefined && /^\d+$/.test(value)) {
      dialect.maxConcurrentJobs = Number(value);
    } else if (name === 'reportedCost' && value !== undefined) {
      dialect.reportedCost = readJsonValue(value);
    } else if (name.startsWith('catalogCost.') && name.length > 12 && value !== undefined) {
      dialect.catalogCosts = { ...dialect.catalogCosts, [name.slice(12)]: readJsonValue(value) };
    } else if (value !== undefined && DIALECT_VALUES[name]?.includes(value) === true) {
      (dialect as Record<string, string>)[name] = value;
    } else {
      return `cannot read "${part}"`;
    }
  }
  return dialect;
}

/** The names and values `parseDialectSpec` takes, for help and error hints. */
export function describeDialectSpec(): string {
  const choices = Object.entries(DIALECT_VALUES).map(([name, values]) => `${name}=${values.join('|')}`);
  return [
    ...choices,
    'numbersAsStrings',
    'failedStatus=WORD',
    'maxConcurrentJobs=N',
    'catalogCost.SLUG=VALUE',
    'reportedCost=VALUE',
  ].join(', ');
}

/** `-30` → -30, `null` → null, `"12"` → "12"; anything that is not JSON (`free`) stays text. */
function readJsonValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

const HOSTILE_NAMES = [
  'errorTextBytes',
  'paddingBytes',
  'dripPollMs',
  'dripDownloadMs',
  'resultsOnApi',
  'truncateDownloadBytes',
  'resultStatus',
] as const;

/** Parses `errorTextBytes=100000,dripPollMs=500` (the `runner simulate --hostile` flag). */
export function parseHostileSpec(spec: string): HostileOptions | string {
  const hostile: HostileOptions = {};
  for (const part of spec
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)) {
    const [name = '', value = ''] = part.split('=');
    const key = HOSTILE_NAMES.find((candidate) => candidate === name);
    if (key === undefined || !/^\d+$/.test(value) || Number(value) < 1) return `cannot read "${part}"`;
    hostile[key] = Number(value);
  }
  return hostile;
}
