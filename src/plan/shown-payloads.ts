import { canonicalHashedParams, hashPayloadAfter, payloadHashPrefix } from '../catalog/payload-hash.js';
import type { CheckedJob } from '../catalog/validate-job.js';
import { writeCanonical } from '../canonical-json.js';
import { isLocalFileRef } from '../catalog/local-files.js';
import type { ExpandedJob } from '../manifest/types.js';
import type { ShownPayload } from './job-table.js';
import { shownParamsJson } from './payload-diff.js';
import { sameJsonValue } from '../same-json-value.js';

/** Distinct written params remembered at most (a plan whose every job has its own params must not grow it). */
const MAX_REMEMBERED = 10_000;

/**
 * What a JSON plan shows of each job for `runner diff` (its identity hash, prompt, params sent),
 * made with one canonical write of the job's params in the common case: jobs of one entry mostly
 * write the same params, and the params sent (catalog defaults applied) and their hashed form are a
 * function of the model and the params as written (files by name and content), so both are
 * remembered by that text. The hash is `hashCheckedJob`'s, byte for byte.
 */
export function createShownPayloads(): (job: ExpandedJob, checked: CheckedJob) => ShownPayload {
  const remembered = new Map<string, ParamTexts>();
  // The last few distinct params of each job entry, compared value by value: a matrix entry whose
  // params are not templated writes them once, not once a job (no text made, no garbage).
  const recent = new Map<number, Recent[]>();
  const entryOf = (job: ExpandedJob, checked: CheckedJob): Recent => {
    let list = recent.get(job.specIndex);
    if (list === undefined) recent.set(job.specIndex, (list = []));
    for (const entry of list) {
      if (
        entry.kind === job.kind &&
        entry.model === job.model &&
        sameJsonValue(entry.written, checked.written)
      )
        return entry;
    }
    const key = `${job.model}\u0000${writeCanonical(checked.written, fileRefByNameAndHash) ?? 'null'}`;
    let texts = remembered.get(key);
    if (texts === undefined) {
      texts = { hashed: canonicalHashedParams(checked.written), shown: shownParamsJson(checked.params) };
      if (remembered.size < MAX_REMEMBERED) remembered.set(key, texts);
    }
    const entry: Recent = {
      kind: job.kind,
      model: job.model,
      written: checked.written,
      texts,
      hashPrefix: payloadHashPrefix(job, texts.hashed),
    };
    list.unshift(entry);
    if (list.length > RECENT_PER_ENTRY) list.pop();
    return entry;
  };
  return (job, checked) => {
    const entry = entryOf(job, checked);
    return new DeferredShownPayload(entry.hashPrefix, job.prompt, entry.texts.shown);
  };
}

/**
 * A shown payload whose hash is made when it is read: a job table takes its `hashPrefix` instead and
 * hashes the row as it writes it, with the prompt's JSON it writes anyway. Made here and kept as 32
 * bytes, the hash went hex → bytes → hex (`hexWrite` + `hexSlice`, 3.4 % of a 1,000,000-job plan's
 * CPU, `--cpu-prof`) and the prompt went through `JSON.stringify` twice.
 */
class DeferredShownPayload implements ShownPayload {
  constructor(
    readonly hashPrefix: string,
    readonly prompt: string | undefined,
    readonly paramsJson: string,
  ) {}

  get payloadHash(): string {
    return hashPayloadAfter(this.hashPrefix, this.prompt);
  }
}

/** Distinct params remembered per job entry for the value-by-value comparison. */
const RECENT_PER_ENTRY = 4;

interface ParamTexts {
  /** As the identity hash writes them. */
  hashed: string;
  /** As the report shows them (`shownParamsJson` of the params sent). */
  shown: string;
}

interface Recent {
  kind: ExpandedJob['kind'];
  model: string;
  written: Readonly<Record<string, unknown>>;
  texts: ParamTexts;
  /** `payloadHashPrefix` of the kind, model and `texts.hashed`. */
  hashPrefix: string;
}

function fileRefByNameAndHash(value: object): string | undefined {
  return isLocalFileRef(value)
    ? `{"file":${JSON.stringify(value.localFile)},"sha256":${JSON.stringify(value.sha256)}}`
    : undefined;
}
