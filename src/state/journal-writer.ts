import type { JournalEntry, JournalHeaderRecord, JournalRecord } from './records.js';
import type { JournalPosition } from './snapshot-format.js';

/** Appends records to the journal; each is on disk before `append` resolves. */
export interface JournalWriter {
  readonly path: string;
  /** The header line written when this writer created the journal; undefined for an existing one. */
  readonly header: JournalHeaderRecord | undefined;
  /** Writes one line and `datasync`s it. Appends are serialized in call order. */
  append(entry: JournalEntry): Promise<JournalRecord>;
  /**
   * Where the journal ends after the appends that resolved so far; undefined when the writer was
   * opened without the line count it started from (`options.lines`), or after a failed append that
   * could not be cut back to its last whole line.
   */
  position(): JournalPosition | undefined;
  /**
   * Runs `task` once every append before it is on disk, holding later appends until it settles: the
   * journal does not grow meanwhile, nor (as every change to state follows an append) the state.
   */
  exclusive<T>(task: (position: JournalPosition | undefined) => Promise<T>): Promise<T>;
  /**
   * Stores what a runner learned after its lease ended (#31.9: the job a create in flight paid for,
   * or its refusal) outside the lease's fence, marked `late`, for the runner that took the run over:
   * only for an attempt whose intent this writer stored, and only while no one re-sent it since.
   * Resolves whether it was stored. Absent where no other runner can take the run over mid-create.
   */
  appendLate?(entry: LateEntry): Promise<boolean>;
  close(): Promise<void>;
}

/** What a runner whose lease ended may still store: a create's answer. */
export type LateEntry = Extract<JournalEntry, { type: 'created' | 'create-failed' }>;
