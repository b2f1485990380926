import type { ExpandedJob } from '../manifest/types.js';
import type { CompiledModelConfig } from './config-schema.js';
import { isPromptTooShort } from './image-rules.js';

/** What is wrong with a job's prompt, if anything (the job's params and model aside). */
export function describePromptIssue(
  job: ExpandedJob,
  compiled: CompiledModelConfig,
): { severity: 'error' | 'warning'; code: string; message: string } | undefined {
  const required = job.kind === 'image' || compiled.promptField?.required === true;
  if (job.prompt === undefined || job.prompt.trim() === '') {
    if (!required) return undefined;
    const received = job.prompt === undefined ? 'none' : JSON.stringify(job.prompt);
    return {
      severity: 'error',
      code: 'missing-prompt',
      message: `job needs a prompt describing the scene, style and composition; received ${received}`,
    };
  }
  if (job.kind === 'image' && isPromptTooShort(job.prompt)) {
    return {
      severity: 'warning',
      code: 'prompt-too-short',
      message: `prompt ${JSON.stringify(job.prompt)} is very short; expected at least 4 words and 20 characters (the service fails vague prompts with PROMPT_UNCLEAR)`,
    };
  }
  return undefined;
}
