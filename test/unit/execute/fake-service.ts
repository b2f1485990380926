import { Readable } from 'node:stream';
import type { CreateJobRequest, ServiceClient } from '../../../src/service/service-client.js';
import type { JobCreation, JobRecord } from '../../../src/service/types.js';
import { RunnerError } from '../../../src/errors.js';
import type { Clock } from '../../../src/clock.js';

/**
 * An in-memory service for executor unit tests. A job's prompt scripts it:
 * `fail:KIND` fails every time, `fail-once:KIND` fails its first job, `never` never finishes,
 * `weird` reports an unknown status twice before completing. Jobs complete on their second poll.
 */
type FakeOutcome = 'complete' | 'never' | 'weird' | { failureKind: string };

export interface FakeService {
  client: ServiceClient;
  creates: CreateJobRequest[];
  uploads: string[];
  jobs: Map<
    string,
    { prompt: string; polls: number; outcome: 'complete' | 'never' | 'weird' | { failureKind: string } }
  >;
  maxOpen: number;
  /** Errors thrown by the next creates, in order. */
  createErrors: RunnerError[];
  /** Errors thrown by the next polls, in order. */
  pollErrors: RunnerError[];
  /** Create answers' `concurrency`. */
  concurrency: number | undefined;
}

export function createFakeService(): FakeService {
  const failedOnce = new Set<string>();
  const byKey = new Map<string, string>();
  let open = 0;
  let next = 1;
  const service: FakeService = {
    creates: [],
    uploads: [],
    jobs: new Map(),
    maxOpen: 0,
    createErrors: [],
    pollErrors: [],
    concurrency: undefined,
    client: {
      listModels: () => Promise.resolve([]),
      getBalance: () => Promise.reject(new Error('not used')),
      getSubscription: () => Promise.resolve(undefined),
      async createJob(request): Promise<JobCreation> {
        await Promise.resolve();
        service.creates.push(request);
        const error = service.createErrors.shift();
        if (error !== undefined) throw error;
        if (request.idempotencyKey !== undefined) {
          const known = byKey.get(request.idempotencyKey);
          if (known !== undefined)
            return { jobId: known, status: 'WaitingForAgent', creditCost: 1, chargeSource: 'Credit' };
        }
        const prompt = typeof request.body.prompt === 'string' ? request.body.prompt : '';
        const jobId = `J${next++}`;
        if (request.idempotencyKey !== undefined) byKey.set(request.idempotencyKey, jobId);
        let outcome: FakeOutcome = 'complete';
        const once = /fail-once:(\w+)/.exec(prompt);
        const always = /fail:(\w+)/.exec(prompt);
        if (once?.[1] !== undefined && !failedOnce.has(prompt)) {
          failedOnce.add(prompt);
          outcome = { failureKind: once[1] };
        } else if (always?.[1] !== undefined && once === null) outcome = { failureKind: always[1] };
        else if (prompt.includes('never')) outcome = 'never';
        else if (prompt.includes('weird')) outcome = 'weird';
        service.jobs.set(jobId, { prompt, polls: 0, outcome });
        open++;
        service.maxOpen = Math.max(service.maxOpen, open);
        const creation: JobCreation = {
          jobId,
          status: 'WaitingForAgent',
          creditCost: 1,
          chargeSource: 'Credit',
          queuePosition: 0,
        };
        if (service.concurrency !== undefined) creation.concurrency = service.concurrency;
        return creation;
      },
      async getJob(jobId): Promise<JobRecord> {
        await Promise.resolve();
        const error = service.pollErrors.shift();
        if (error !== undefined) throw error;
        const job = service.jobs.get(jobId);
        if (job === undefined) throw new RunnerError('NOT_FOUND', `no job ${jobId}`);
        job.polls++;
        if (job.outcome === 'never' || job.polls < 2)
          return { jobId, status: 'Processing', phase: 'running', progress: job.polls * 10, resultUrls: [] };
        if (job.outcome === 'weird' && job.polls < 4)
          return { jobId, status: 'Thinking', phase: 'unknown', resultUrls: [] };
        open--;
        job.polls = -1_000_000;
        if (typeof job.outcome === 'object') {
          return {
            jobId,
            status: 'error',
            phase: 'failed',
            resultUrls: [],
            failureKind: job.outcome.failureKind,
            error: `failed: ${job.outcome.failureKind}`,
          };
        }
        return {
          jobId,
          status: 'complete',
          phase: 'complete',
          resultUrls: [`https://results.test/${jobId}.png`, `https://results.test/${jobId}-b`],
          creditCost: 1,
          chargeSource: 'Credit',
        };
      },
      uploadImage(file) {
        service.uploads.push(file.fileName);
        return Promise.resolve(`https://blob.test/${file.fileName}`);
      },
      // The result's bytes are its URL, stored through the runner's own sink (its results store).
      downloadTo: (url, sink) =>
        sink(bodyOf(url), { head: bytesOf(url), signal: new AbortController().signal }),
      close: () => Promise.resolve(),
    },
  };
  return service;
}

/** Virtual time: every sleep advances the clock by its length and yields once. */
export function createFakeClock(start = 1_000_000): Clock & { advance(ms: number): void } {
  let now = start;
  return {
    now: () => now,
    advance(ms) {
      now += ms;
    },
    async sleep(ms, signal) {
      if (signal?.aborted) throw signal.reason as Error;
      now += ms;
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (signal?.aborted) throw signal.reason as Error;
    },
  };
}

const bytesOf = (text: string): Uint8Array => Buffer.from(text, 'utf8');

/** One chunk, as a result body. */
function bodyOf(text: string): AsyncIterable<Uint8Array> {
  return Readable.from([bytesOf(text)], { objectMode: false }) as AsyncIterable<Uint8Array>;
}
