import { buildReportData, type ReportJobInput } from '../../../src/report/report-data.js';
import { replayJournal } from '../../../src/state/replay.js';

/** A small run: two done images (one with two results, one not downloaded), a failure, a deferral, an uncertain create, a never-run job. */
export const DAY = Date.UTC(2026, 10, 23, 8, 0, 0);

const records = [
  { type: 'run', at: DAY, runId: 'nightly', pipeline: 'p', pid: 1, manifestFile: 'p.yaml' },
  { type: 'intent', at: DAY, id: 'ad-latte-watercolor', attempt: 1, payloadHash: 'h' },
  { type: 'created', at: DAY + 1, id: 'ad-latte-watercolor', attempt: 1, jobId: 'J1', creditCost: 4 },
  {
    type: 'completed',
    at: DAY + 2,
    id: 'ad-latte-watercolor',
    attempt: 1,
    resultUrls: ['https://r/J1/1.png', 'https://r/J1/2.png'],
    creditCost: 4,
  },
  {
    type: 'downloaded',
    at: DAY + 3,
    id: 'ad-latte-watercolor',
    url: 'https://r/J1/1.png',
    file: '/out/ad-latte-watercolor.png',
    bytes: 10,
    sha256: 'aa',
  },
  {
    type: 'downloaded',
    at: DAY + 3,
    id: 'ad-latte-watercolor',
    url: 'https://r/J1/2.png',
    file: '/out/ad-latte-watercolor+2.png',
    bytes: 11,
    sha256: 'bb',
  },
  { type: 'intent', at: DAY, id: 'ad-mocha-watercolor', attempt: 1, payloadHash: 'h' },
  { type: 'created', at: DAY + 1, id: 'ad-mocha-watercolor', attempt: 1, jobId: 'J2', creditCost: 4 },
  {
    type: 'completed',
    at: DAY + 5,
    id: 'ad-mocha-watercolor',
    attempt: 1,
    resultUrls: ['https://r/J2/1.jpeg'],
    creditCost: 4,
  },
  { type: 'intent', at: DAY, id: 'rejected', attempt: 1, payloadHash: 'h' },
  { type: 'created', at: DAY + 1, id: 'rejected', attempt: 1, jobId: 'J3', creditCost: 4 },
  {
    type: 'failed',
    at: DAY + 2,
    id: 'rejected',
    attempt: 1,
    failureKind: 'CONTENT_REJECTED',
    error: 'policy <b>',
    willRetry: false,
  },
  { type: 'intent', at: DAY, id: 'busy', attempt: 1, payloadHash: 'h' },
  { type: 'created', at: DAY + 1, id: 'busy', attempt: 1, jobId: 'J4' },
  { type: 'deferred', at: DAY + 2, id: 'busy', attempt: 1, failureKind: 'QUOTA_EXHAUSTED', notBefore: DAY },
  { type: 'intent', at: DAY, id: 'lost', attempt: 1, payloadHash: 'h' },
  { type: 'uncertain', at: DAY + 9, id: 'lost', attempt: 1, reason: 'the answer was lost' },
];

export const JOURNAL = records.map((record) => JSON.stringify(record)).join('\n');

const image = (id: string, product: string, prompt: string): ReportJobInput => ({
  id,
  kind: 'image',
  model: 'chatgpt-image-sangtao',
  prompt,
  params: {
    aspectRatio: '16:9',
    referenceImages: [
      { localFile: './logo.png', path: '/m/logo.png', sha256: 'x', contentType: 'image/png', bytes: 1 },
    ],
  },
  matrixValues: { product, style: 'watercolor' },
});

export const JOBS: ReportJobInput[] = [
  image('ad-latte-watercolor', 'latte', 'A watercolor latte, "quoted", with a comma'),
  image('ad-mocha-watercolor', 'mocha', '=HYPERLINK("x")'),
  {
    id: 'rejected',
    kind: 'image',
    model: 'm',
    prompt: '<img src=x onerror=alert(1)>',
    params: {},
    matrixValues: {},
  },
  { id: 'busy', kind: 'image', model: 'm', params: {}, matrixValues: {} },
  { id: 'lost', kind: 'voiceover-video', model: 'v', params: {}, matrixValues: {} },
  { id: 'never', kind: 'image', model: 'm', params: {}, matrixValues: {} },
];

/** The sample run's report data, its entries made once into an array (tests read them by index). */
export function sampleData() {
  const data = sampleDataAsBuilt();
  return { ...data, entries: [...data.entries] };
}

/** The sample run's report data as `buildReportData` gives it: entries made when they are read. */
export function sampleDataAsBuilt() {
  return buildReportData({
    pipeline: 'p',
    runId: 'nightly',
    manifestFile: 'p.yaml',
    jobs: JOBS,
    state: replayJournal(JOURNAL).jobs,
    now: new Date(DAY + 60_000),
  });
}
