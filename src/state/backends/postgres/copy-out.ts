import type { ClientBase, Connection, Submittable } from 'pg';

/** The 11-byte signature that starts PostgreSQL's binary COPY format, then flags and extension length. */
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const HEADER_BYTES = SIGNATURE.length + 4 + 4;

/**
 * Runs `COPY (query) TO STDOUT (FORMAT binary)` for a query of one column and hands each row's value,
 * as the server sent its bytes, to `onValue` (in pieces, in order: a value may come in several). A
 * text column's bytes are its UTF-8 text, so large values reach the caller without being decoded into
 * JavaScript strings, which is what a SELECT through node-postgres costs (in time, and in garbage the
 * heap grows by). The pieces are valid only during the call. Resolves with the number of rows.
 *
 * Uses node-postgres' documented `Submittable` interface (as pg-cursor and pg-copy-streams do); COPY
 * takes no parameters, so `query` must hold its values as literals (`client.escapeLiteral`).
 */
export function copyOutValues(
  client: ClientBase,
  query: string,
  onValue: (piece: Buffer, row: number) => void,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const copy = new BinaryCopyOut(`COPY (${query}) TO STDOUT (FORMAT binary)`, onValue);
    // node-postgres wraps it with the connection's query timeout (and clears that when it is called).
    copy.callback = (error, rows) => (error === null ? resolve(rows ?? 0) : reject(error));
    void client.query(copy);
  });
}

/**
 * The COPY as node-postgres runs it: it calls `submit`, then the handlers for what the server sends
 * (the ones a `Submittable` is given). Exported for its tests.
 */
export class BinaryCopyOut implements Submittable {
  private stage: 'header' | 'count' | 'length' | 'value' | 'end' = 'header';
  /** Bytes of a header, field count or field length that came split across messages. */
  private held: Buffer = Buffer.alloc(0);
  private left = 0;
  private rows = 0;
  private failure: Error | undefined;
  private settled = false;
  /** Called once, with the error or the number of rows; node-postgres wraps it (query timeout). */
  callback: ((error: Error | null, rows?: number) => void) | undefined;

  constructor(
    private readonly text: string,
    private readonly onValue: (piece: Buffer, row: number) => void,
  ) {}

  submit(connection: Connection): void {
    (connection as unknown as { query(text: string): void }).query(this.text);
  }

  handleCopyData(message: { chunk: Buffer }): void {
    if (this.failure !== undefined) return;
    try {
      this.take(message.chunk);
    } catch (error) {
      this.failure = error instanceof Error ? error : new Error(String(error));
    }
  }

  handleRowDescription(): void {}
  handleDataRow(): void {}
  handlePortalSuspended(): void {}
  handleEmptyQuery(): void {}
  handleCommandComplete(): void {}

  handleCopyInResponse(connection: Connection): void {
    (connection as unknown as { sendCopyFail(message: string): void }).sendCopyFail(
      'the runner asked for COPY TO, not COPY FROM',
    );
  }

  handleError(error: Error): void {
    this.finish(error);
  }

  handleReadyForQuery(): void {
    if (this.failure === undefined && this.stage !== 'end') {
      this.failure = new Error('the COPY data ended before its trailer');
    }
    this.finish(this.failure);
  }

  private finish(error: Error | undefined): void {
    if (this.settled) return;
    this.settled = true;
    this.callback?.(error ?? null, this.rows);
  }

  /** Walks the binary COPY stream: header, then per row a field count (1), a length and the value. */
  private take(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.stage === 'value') {
        const piece = chunk.subarray(at, at + this.left);
        this.onValue(piece, this.rows);
        at += piece.length;
        this.left -= piece.length;
        if (this.left === 0) {
          this.rows++;
          this.stage = 'count';
        }
        continue;
      }
      if (this.stage === 'end') throw new Error('the COPY data goes on after its trailer');
      const size = this.stage === 'header' ? HEADER_BYTES : this.stage === 'count' ? 2 : 4;
      const wanted = size - this.held.length;
      const bytes = chunk.subarray(at, at + wanted);
      at += bytes.length;
      this.held = this.held.length === 0 && bytes.length === size ? bytes : Buffer.concat([this.held, bytes]);
      if (this.held.length < size) return;
      const field = this.held;
      this.held = Buffer.alloc(0);
      this.advance(field);
    }
  }

  private advance(field: Buffer): void {
    if (this.stage === 'header') {
      if (!field.subarray(0, SIGNATURE.length).equals(SIGNATURE)) throw new Error('not binary COPY data');
      // No header extensions are defined; a server that sent some would need their length skipped.
      if (field.readUInt32BE(SIGNATURE.length + 4) !== 0) throw new Error('a COPY header extension');
      this.stage = 'count';
    } else if (this.stage === 'count') {
      const count = field.readInt16BE(0);
      if (count === -1) this.stage = 'end';
      else if (count === 1) this.stage = 'length';
      else throw new Error(`a COPY row of ${count} fields, not 1`);
    } else {
      const length = field.readInt32BE(0);
      if (length < 0) throw new Error('a NULL value in the COPY data');
      this.left = length;
      if (length === 0) {
        this.rows++;
        this.stage = 'count';
      } else this.stage = 'value';
    }
  }
}
