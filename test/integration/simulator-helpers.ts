import { request } from 'undici';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/simulator/index.js';

/** A started simulator plus small request helpers; all on 127.0.0.1. */
export interface SimHarness {
  sim: Simulator;
  /** Fake time for the simulator's clock; advance with `tick`. */
  tick(ms: number): void;
  api(method: 'GET' | 'POST', path: string, body?: unknown, apiKey?: string | null): Promise<ApiResponse>;
  raw(
    method: 'GET' | 'PUT' | 'POST',
    url: string,
    body?: Buffer | string,
    headers?: Record<string, string>,
  ): Promise<RawResponse>;
  waitForEnd(jobId: string): Promise<Fields>;
}

/** The `data` of an answer, with the fields the tests read typed loosely. */
export type Fields = Record<string, unknown> & {
  jobId: string;
  status: string;
  resultUrl: string;
  resultImages: string[];
  sasUrl: string;
  publicUrl: string;
};

export interface ApiResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: { success: boolean; error: string | null; errorCode?: string | null; data: Fields };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
}

const started: Simulator[] = [];

/** Starts a simulator; `fakeClock: true` drives it from `tick()` instead of real time. */
export async function startHarness(
  options: SimulatorOptions & { fakeClock?: boolean } = {},
): Promise<SimHarness> {
  let now = 1_700_000_000_000;
  const { fakeClock, ...simOptions } = options;
  const sim = await startSimulator({
    timeScale: 0.002,
    ...simOptions,
    ...(fakeClock === true ? { clock: { now: () => now } } : {}),
  });
  started.push(sim);
  const harness: SimHarness = {
    sim,
    tick(ms) {
      now += ms;
    },
    async api(method, path, body, apiKey = sim.apiKey) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (apiKey !== null) headers['x-api-key'] = apiKey;
      const response = await request(`${sim.baseUrl}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return {
        status: response.statusCode,
        headers: response.headers,
        json: (await response.body.json()) as ApiResponse['json'],
      };
    },
    async raw(method, url, body, headers = {}) {
      const response = await request(url, { method, headers, ...(body === undefined ? {} : { body }) });
      return {
        status: response.statusCode,
        headers: response.headers,
        bytes: Buffer.from(await response.body.arrayBuffer()),
      };
    },
    async waitForEnd(jobId) {
      for (let i = 0; i < 500; i++) {
        if (fakeClock === true) harness.tick(10_000);
        const { json } = await harness.api('GET', `/jobs/${jobId}`);
        const data = json.data;
        if (data.status === 'complete' || data.status === 'error') return data;
        if (fakeClock !== true) await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error(`job ${jobId} did not end`);
    },
  };
  return harness;
}

/** Closes every simulator started by {@link startHarness}. */
export async function closeHarnesses(): Promise<void> {
  await Promise.all(started.splice(0).map((sim) => sim.close()));
}

export const IMAGE_MODEL = 'chatgpt-image-sangtao';
export const LONG_PROMPT = 'A lighthouse on a cliff at dawn, watercolor';
