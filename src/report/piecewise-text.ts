/**
 * A text file made of a head, one piece per item, and a tail, so that it is written an item at a
 * time and several files are written from one pass over the items (`writeReportFiles`: reading each
 * job's state from the snapshot once, not once per file). A format is made per file written: it may
 * remember what came (whether any item did).
 */
export interface PiecewiseFormat<T> {
  head: () => string;
  /** The text of one item ('' for an item the file does not show). */
  item: (item: T) => string;
  tail: () => string;
}

/** The format's text of `items`, piece by piece. */
export function* piecesOf<T>(format: PiecewiseFormat<T>, items: Iterable<T>): Generator<string> {
  yield format.head();
  for (const item of items) {
    const text = format.item(item);
    if (text !== '') yield text;
  }
  yield format.tail();
}
