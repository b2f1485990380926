/**
 * The worker thread of a plan split by position (`plan-split.ts`). Plans its part (`planPart`) and
 * posts the outcome; then, asked for its rows' JSON, posts it in UTF-8 batches, each moved, not
 * copied, at most {@link AHEAD} batches ahead of the ones the main thread has written (each written
 * batch is answered with a `more`): the report is never held whole. A failure is thrown: the main
 * thread sees the worker's `error` event and fails the plan.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { planPart, type PartInput } from './plan-part.js';
import type { PartRequest, PartMessage } from './plan-part-protocol.js';

/** Batches (~1 MB each) posted ahead of the ones the main thread has written: the worker renders its rows while the main thread renders its own, and a 100,000-job part (~27 MB) never waits. */
const AHEAD = 48;

const port = parentPort!;
const post = (message: PartMessage, moved: ArrayBuffer[] = []): void => port.postMessage(message, moved);

void planPart(workerData as PartInput).then((planned) => {
  const { outcome } = planned;
  post(
    { type: 'tallied', outcome },
    outcome.clean
      ? [
          outcome.part.walk.kinds,
          outcome.part.walk.models,
          outcome.part.walk.credits,
          outcome.part.walk.toRun,
        ].map((array) => array.buffer as ArrayBuffer)
      : [],
  );
  let batches: Iterator<Buffer> | undefined;
  let credit = AHEAD;
  const send = (): void => {
    while (batches !== undefined && credit > 0) {
      const next = batches.next();
      if (next.done === true) {
        post({ type: 'end' });
        batches = undefined;
        return;
      }
      credit--;
      // A batch of its own (`utf8Batches` makes each one new): its memory moves to the main thread.
      const bytes = new Uint8Array(next.value.buffer, next.value.byteOffset, next.value.byteLength);
      post({ type: 'json', bytes }, [bytes.buffer as ArrayBuffer]);
    }
  };
  port.on('message', (request: PartRequest) => {
    if (request.type === 'json') {
      batches = planned.json(request.covered, request.paramsRefs)[Symbol.iterator]();
    } else credit++;
    send();
  });
});
