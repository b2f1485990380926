import { describe, expect, it } from 'vitest';
import { isGithubActions, renderAnnotations } from '../../../src/cli/render/annotations.js';

describe('GitHub Actions annotations', () => {
  it('turns each issue into a workflow command at its file:line:col', () => {
    const lines = renderAnnotations(
      [
        {
          severity: 'error',
          code: 'unknown-param',
          message: 'Unknown param "aspect": 50% off, see\nbelow',
          jobId: 'hero-a',
          location: { file: 'pipes/a,b.yaml', line: 12, col: 7 },
          hint: 'did you mean "aspectRatio"?',
        },
        { severity: 'warning', code: 'short-prompt', message: 'The prompt is short.' },
      ],
      'pipes/main.yaml',
    );
    expect(lines).toEqual([
      '::error file=pipes/a%2Cb.yaml,line=12,col=7,title=unknown-param (hero-a)::Unknown param "aspect": 50%25 off, see%0Abelow%0Adid you mean "aspectRatio"?',
      '::warning file=pipes/main.yaml,title=short-prompt::The prompt is short.',
    ]);
  });

  it('is on only when GITHUB_ACTIONS is "true"', () => {
    expect(isGithubActions({ GITHUB_ACTIONS: 'true' })).toBe(true);
    expect(isGithubActions({ CI: 'true' })).toBe(false);
  });
});
