import type { CostReportView } from '../plan/job-table.js';
import { renderReportJsonChunks } from '../plan/render-report-json.js';
import type { SplitJobList } from '../plan/tally-part.js';
import { utf8Batches } from '../utf8-batches.js';

/**
 * The JSON report of a plan split over two threads (`plan-split.ts`), byte for byte what one
 * thread writes: the report up to the end of the first table's rows, in UTF-8 batches (as
 * `utf8Batches(renderReportJsonChunks(report))`), then the other part's rows as its worker wrote them
 * (received as they come: never all held), then the end of the report.
 */
export async function* splitReportJson(
  report: CostReportView,
  list: SplitJobList,
): AsyncGenerator<Buffer, void, undefined> {
  let end = '';
  function* toFirstRows(): Generator<string, void, undefined> {
    // The last piece closes the list and the report: held back until the other part's rows are out.
    let held: string | undefined;
    for (const piece of renderReportJsonChunks({ ...report, jobList: list.first })) {
      if (held !== undefined) yield held;
      held = piece;
    }
    end = held ?? '';
  }
  yield* utf8Batches(toFirstRows());
  yield Buffer.from(',\n');
  for await (const bytes of list.rest.json(list.restCovered, list.restParamsRefs)) {
    yield Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  yield Buffer.from(end);
}
