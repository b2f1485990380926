import { describe, expect, it } from 'vitest';
import { buildReportData, mediaTypeOf, reportStatusOf, statusesOf } from '../../../src/report/report-data.js';
import { RESULT_RETENTION_MS } from '../../../src/service/job-status.js';
import { replayJournal } from '../../../src/state/replay.js';
import { DAY, sampleData, sampleDataAsBuilt } from './fixtures.js';

describe('buildReportData', () => {
  const data = sampleData();
  const entry = (id: string) => data.entries.find((candidate) => candidate.id === id);

  it('keeps the manifest order and collects the matrix axes', () => {
    expect(data.entries.map((candidate) => candidate.id)).toEqual([
      'ad-latte-watercolor',
      'ad-mocha-watercolor',
      'rejected',
      'busy',
      'lost',
      'never',
    ]);
    expect(data.axes).toEqual(['product', 'style']);
  });

  it('joins each done job with its downloads, sizes, checksums and link expiry', () => {
    expect(entry('ad-latte-watercolor')).toMatchObject({
      status: 'done',
      attempts: 1,
      credits: 4,
      serviceJobId: 'J1',
      params: { aspectRatio: '16:9', referenceImages: ['./logo.png'] },
      files: [
        {
          index: 1,
          path: '/out/ad-latte-watercolor.png',
          bytes: 10,
          sha256: 'aa',
          mediaType: 'image',
          urlExpiresAt: new Date(DAY + 2 + RESULT_RETENTION_MS).toISOString(),
        },
        { index: 2, path: '/out/ad-latte-watercolor+2.png', bytes: 11, sha256: 'bb' },
      ],
    });
    const notDownloaded = entry('ad-mocha-watercolor')?.files[0];
    expect(notDownloaded).toEqual({
      index: 1,
      url: 'https://r/J2/1.jpeg',
      mediaType: 'image',
      urlExpiresAt: new Date(DAY + 5 + RESULT_RETENTION_MS).toISOString(),
    });
  });

  it('gives failures, deferrals and uncertain creates their advice; refunded jobs cost nothing', () => {
    expect(entry('rejected')).toMatchObject({
      status: 'failed',
      credits: 0,
      failureKind: 'CONTENT_REJECTED',
      error: 'policy <b>',
      advice: 'The prompt is against the content policy: change the prompt.',
      files: [],
    });
    expect(entry('busy')).toMatchObject({ status: 'deferred', failureKind: 'QUOTA_EXHAUSTED' });
    expect(entry('busy')?.advice).toContain('retry after a few hours');
    expect(entry('lost')).toMatchObject({ status: 'uncertain', error: 'the answer was lost' });
    expect(entry('lost')?.advice).toContain('--resend-uncertain');
    expect(entry('never')).toEqual({
      id: 'never',
      kind: 'image',
      model: 'm',
      params: {},
      matrix: {},
      status: 'pending',
      attempts: 0,
      credits: 0,
      files: [],
    });
  });

  it('gives a deferred job its retry time and a retried job what its earlier attempts failed with', () => {
    expect(entry('busy')?.notBefore).toBe(new Date(DAY).toISOString());
    expect(entry('busy')?.earlierAttempts).toBeUndefined();
    const journal = [
      { type: 'intent', at: DAY, id: 'again', attempt: 1, payloadHash: 'h' },
      { type: 'created', at: DAY + 1, id: 'again', attempt: 1, jobId: 'A1', creditCost: 4 },
      {
        type: 'failed',
        at: DAY + 2,
        id: 'again',
        attempt: 1,
        failureKind: 'GENERATION_FAILED',
        error: 'boom',
        willRetry: true,
      },
      { type: 'intent', at: DAY + 3, id: 'again', attempt: 2, payloadHash: 'h' },
      { type: 'created', at: DAY + 4, id: 'again', attempt: 2, jobId: 'A2', creditCost: 4 },
      {
        type: 'completed',
        at: DAY + 5,
        id: 'again',
        attempt: 2,
        resultUrls: ['https://r/A2/1.png'],
        creditCost: 4,
      },
    ];
    const built = buildReportData({
      pipeline: 'p',
      runId: 'r',
      manifestFile: 'p.yaml',
      jobs: [{ id: 'again', kind: 'image', model: 'm', params: {}, matrixValues: {} }],
      state: replayJournal(journal.map((record) => JSON.stringify(record)).join('\n')).jobs,
      now: new Date(DAY),
    });
    const [again] = [...built.entries];
    expect(again).toMatchObject({ status: 'done', attempts: 2, serviceJobId: 'A2' });
    expect(again?.earlierAttempts).toEqual([
      { attempt: 1, outcome: 'retry', failureKind: 'GENERATION_FAILED', error: 'boom' },
    ]);
    expect(again?.failureKind).toBeUndefined();
  });

  it('lists the files of replaced attempts, rejected with the note or plainly replaced (#19.3)', () => {
    const attempt = (id: string, n: number, at: number, extra: Record<string, unknown> = {}) => [
      { type: 'intent', at, id, attempt: n, payloadHash: 'h', ...extra },
      { type: 'created', at: at + 1, id, attempt: n, jobId: `${id}-${n}` },
      { type: 'completed', at: at + 2, id, attempt: n, resultUrls: [`https://r/${id}/${n}.png`] },
      {
        type: 'downloaded',
        at: at + 3,
        id,
        url: `https://r/${id}/${n}.png`,
        file: `/out/${id}.png`,
        bytes: n,
        sha256: `s${n}`,
      },
    ];
    const journal = [
      ...attempt('reviewed', 1, DAY),
      ...attempt('reviewed', 2, DAY + 10, { rejectedAttempt: 1, rejectionNote: 'blurry' }),
      ...attempt('replaced', 1, DAY),
      ...attempt('replaced', 2, DAY + 10),
      ...attempt('once', 1, DAY),
    ];
    const built = buildReportData({
      pipeline: 'p',
      runId: 'r',
      manifestFile: 'p.yaml',
      jobs: ['reviewed', 'replaced', 'once'].map((id) => ({
        id,
        kind: 'image' as const,
        model: 'm',
        params: {},
        matrixValues: {},
      })),
      state: replayJournal(journal.map((record) => JSON.stringify(record)).join('\n')).jobs,
      now: new Date(DAY),
    });
    const [reviewed, replaced, once] = [...built.entries];
    expect(reviewed).toMatchObject({ attempt: 2, payloadHash: 'h', files: [{ path: '/out/reviewed.png' }] });
    expect(reviewed?.replaced).toEqual([
      {
        attempt: 1,
        replacedBy: 2,
        rejected: true,
        note: 'blurry',
        files: [
          {
            index: 1,
            url: 'https://r/reviewed/1.png',
            path: '/out/.superseded/attempt-1/reviewed.png',
            bytes: 1,
            sha256: 's1',
            mediaType: 'image',
          },
        ],
      },
    ]);
    expect(replaced?.replaced).toMatchObject([{ attempt: 1, replacedBy: 2, rejected: false }]);
    expect(replaced?.replaced?.[0]?.note).toBeUndefined();
    expect(once).toMatchObject({ attempt: 1, payloadHash: 'h' });
    expect(once?.replaced).toBeUndefined();
  });

  it('tells images from videos by extension, else by the job kind', () => {
    expect(mediaTypeOf('voiceover-video', '/o/a.png')).toBe('image');
    expect(mediaTypeOf('image', 'https://x/a.mp4?sig=1')).toBe('video');
    expect(mediaTypeOf('image', 'https://x/blob')).toBe('image');
    expect(mediaTypeOf('render-video', 'https://x/blob')).toBe('video');
  });
});

describe('buildReportData: entries made when read', () => {
  it('gives its count without making them, and makes them anew, equal, on each reading', () => {
    const data = sampleDataAsBuilt();
    expect(Array.isArray(data.entries)).toBe(false);
    expect(data.entries.length).toBe(sampleData().entries.length);
    const first = [...data.entries];
    const second = [...data.entries];
    expect(second).toEqual(first);
    expect(second[0]).not.toBe(first[0]);
    expect(first).toEqual(sampleData().entries);
  });

  it('gives the entries’ statuses without making them, as a plain list of entries gives them', () => {
    const data = sampleDataAsBuilt();
    const statuses = [...data.entries].map(reportStatusOf);
    expect(new Set(statuses).size).toBeGreaterThan(3);
    // The done job whose one result was never downloaded counts as paid but not saved.
    expect(statuses.slice(0, 2)).toEqual(['done', 'downloading']);
    expect([...(data.entries.statuses?.() ?? [])]).toEqual(statuses);
    expect([...statusesOf(data.entries)]).toEqual(statuses);
    expect([...statusesOf(sampleData().entries)]).toEqual(statuses);
  });
});
