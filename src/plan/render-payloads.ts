import { snapshotPayload, type PayloadSnapshot } from './payload-diff.js';
import type { PlannedJob } from '../manifest/planned-job.js';

/** One job's rendered request, as `runner render --json` and `plan --show payloads` give it. */
export interface RenderedPayload extends PayloadSnapshot {
  id: string;
}

/** The rendered payloads of jobs (local files by name and content hash). */
export function collectPayloads(
  jobs: readonly Pick<PlannedJob, 'id' | 'kind' | 'model' | 'prompt' | 'params'>[],
): RenderedPayload[] {
  return jobs.map((job) => ({ id: job.id, ...snapshotPayload(job) }));
}

/**
 * Payloads as text: a heading per job, the prompt as written (multi-line prompts indented), then one
 * line per param with its value as JSON, so types stay visible (`"16:9"` vs `16`).
 */
export function renderPayloadsText(payloads: readonly RenderedPayload[]): string {
  const lines: string[] = [];
  for (const payload of payloads) {
    if (lines.length > 0) lines.push('');
    lines.push(`# ${payload.id} (${payload.kind}, ${payload.model})`);
    if (payload.prompt !== undefined) {
      const [first = '', ...rest] = payload.prompt.split('\n');
      lines.push(`prompt: ${first}`, ...rest.map((line) => `        ${line}`));
    }
    const names = Object.keys(payload.params);
    if (names.length > 0) {
      lines.push('params:');
      for (const name of names) lines.push(`  ${name}: ${JSON.stringify(payload.params[name])}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
