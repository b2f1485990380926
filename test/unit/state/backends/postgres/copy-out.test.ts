import { describe, expect, it } from 'vitest';
import { BinaryCopyOut } from '../../../../../src/state/backends/postgres/copy-out.js';

/** PostgreSQL's binary COPY stream of one-column rows: header, rows (count, length, bytes), trailer. */
function binaryCopy(values: string[]): Buffer {
  const header = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
  const rows = values.map((value) => {
    const bytes = Buffer.from(value, 'utf8');
    const head = Buffer.alloc(6);
    head.writeInt16BE(1, 0);
    head.writeInt32BE(bytes.length, 2);
    return Buffer.concat([head, bytes]);
  });
  const trailer = Buffer.alloc(2);
  trailer.writeInt16BE(-1, 0);
  return Buffer.concat([header, ...rows, trailer]);
}

function run(stream: Buffer, split: number) {
  const pieces: Buffer[][] = [];
  let outcome: { error: Error | undefined; rows: number } | undefined;
  const copy = new BinaryCopyOut('COPY', (piece, row) => (pieces[row] ??= []).push(Buffer.from(piece)));
  copy.callback = (error, rows) => (outcome = { error: error ?? undefined, rows: rows ?? 0 });
  for (let at = 0; at < stream.length; at += split)
    copy.handleCopyData({ chunk: stream.subarray(at, at + split) });
  copy.handleReadyForQuery();
  return { values: pieces.map((row) => Buffer.concat(row).toString('utf8')), outcome };
}

describe('binary COPY reader', () => {
  const values = ['{"type":"snapshot"}\n', 'ünïcödé lines\n\ta tab\n', 'x'.repeat(300)];

  it("gives each value's bytes whatever the messages split them at", () => {
    const stream = binaryCopy(values);
    for (const split of [1, 2, 3, 5, 7, 19, 64, stream.length]) {
      const { values: read, outcome } = run(stream, split);
      expect(outcome, `split ${split}`).toEqual({ error: undefined, rows: 3 });
      expect(read, `split ${split}`).toEqual(values);
    }
  });

  it('fails on a stream cut before its trailer, or that is not binary COPY', () => {
    const stream = binaryCopy(values);
    expect(run(stream.subarray(0, stream.length - 2), 7).outcome?.error?.message).toMatch(
      /before its trailer/,
    );
    expect(run(Buffer.from('not a copy at all, long enough'), 4).outcome?.error?.message).toMatch(
      /not binary COPY data/,
    );
  });
});
