import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { CommentGitHubResult } from '../../app/comment-github.js';
import { RunnerError } from '../../errors.js';
import { defineCommand, flag } from './command.js';

/**
 * `runner comment github --path diff.json`: posts the cost diff to its pull request as one comment.
 * Option parsing and rendering only; the use case is ../../app/comment-github.ts.
 */
export const commentCommand = defineCommand({
  name: 'comment',
  args: '<provider>',
  description:
    'Post a cost diff (`runner diff --format json`) to its pull request as one comment, kept up to date (provider: github)',
  flags: [
    flag('--path <file>', 'The cost diff JSON (from `runner diff base.json head.json --format json`)'),
    flag('--repo <owner/name>', 'The repository (default: env GITHUB_REPOSITORY)'),
    flag('--pull-request <n>', "The pull request's number (default: the GITHUB_EVENT_PATH event's)", {
      type: [String],
    }),
    flag('--github-token-file <file>', 'Read the GitHub token from a file (default: env GITHUB_TOKEN)'),
    flag(
      '--github-api-url <url>',
      'GitHub API base URL (default: env GITHUB_API_URL, else https://api.github.com)',
    ),
    flag(
      '--behavior <behavior>',
      'update: edit our comment in place; new: add one each time; delete-and-new: delete ours, add one',
      { default: 'update' },
    ),
    flag(
      '--when <when>',
      'always; changed: only when the cost changed; increased: only when it went up (an existing comment is still updated)',
      { default: 'always' },
    ),
    flag('--tag <tag>', 'Keep this comment apart from other cost comments on the same pull request'),
    flag(
      '--dry-run',
      'Print the comment and what would be done; send nothing (reads the comments if a token is set)',
    ),
    flag('--format <format>', 'text or json', { default: 'text' }),
  ],
  // It talks to GitHub, not the service.
  globals: [],
  examples: ['runner comment github --path diff.json --behavior update --when changed'],
  async parse({ args, flags }) {
    const { parseCommentOptions } = await import('../parse/comment.js');
    return parseCommentOptions(args, flags);
  },
  async run(ctx, { path, behavior, when, format, tag, dryRun, ...github }) {
    const { commentGitHub, readGitHubToken, resolveApiUrl, resolvePullRequest } =
      await import('../../app/comment-github.js');
    const { parseCostDiff } = await import('../../diff/read-cost-diff.js');
    const { createGitHubClient } = await import('../../github/client.js');
    const apiUrl = resolveApiUrl(github.githubApiUrl, ctx.env);
    const pr = await resolvePullRequest(
      withDefined({ repo: github.repo, pullRequest: github.pullRequest }),
      ctx.env,
      (file) => readFile(file, 'utf8'),
    );
    const file = resolve(ctx.cwd, path);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new RunnerError(
        'INVALID_INPUT',
        `Cannot read the cost diff ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}.`,
      );
    }
    const diff = parseCostDiff(text, path);
    const token = await readGitHubToken(github.githubTokenFile, ctx.env, (name) =>
      readFile(resolve(ctx.cwd, name), 'utf8'),
    );
    if (token === undefined && !dryRun) {
      throw new RunnerError(
        'AUTHENTICATION',
        'No GitHub token: set GITHUB_TOKEN or pass --github-token-file.',
        {
          hint: 'In a workflow: `env: GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}` with `permissions: pull-requests: write`.',
        },
      );
    }
    const client = token === undefined ? undefined : createGitHubClient({ apiUrl, token });
    const result = await commentGitHub(
      {
        diff,
        pr,
        behavior,
        when,
        dryRun,
        ...(tag === undefined ? {} : { tag }),
        fullReport: withDefined({ path, url: runUrl(ctx.env) }),
        // Actions' GITHUB_TOKEN belongs to the github-actions app, whose comments are its bot's.
        ...(ctx.env.GITHUB_ACTIONS === 'true' ? { fallbackLogin: 'github-actions[bot]' } : {}),
      },
      { client },
    );
    if (format === 'json') {
      const { body, ...rest } = result;
      ctx.output.out(JSON.stringify(dryRun ? result : { ...rest, bodyLength: body.length }, null, 2));
    } else {
      if (dryRun) ctx.output.out(result.body);
      ctx.output.err(describeResult(result));
    }
    return 'done';
  },
});

/** One line: what was (or would be) done, where, and why. */
export function describeResult(result: CommentGitHubResult): string {
  const where = result.pullRequest;
  const url = result.url === undefined ? '' : `: ${result.url}`;
  const would = result.dryRun ? 'Dry run, nothing sent: would have ' : '';
  switch (result.action) {
    case 'created':
      return `${would}${result.dryRun ? 'created' : 'Created'} the cost comment on ${where}${url} (${result.reason}).`;
    case 'updated':
      return `${would}${result.dryRun ? 'updated' : 'Updated'} the cost comment on ${where}${url} (${result.reason}).`;
    case 'replaced':
      return `${would}${result.dryRun ? 'replaced' : 'Replaced'} the cost comment on ${where}${url} (${result.reason}).`;
    case 'unchanged':
      return `${result.dryRun ? 'Dry run: ' : ''}The cost comment on ${where} already says this; nothing sent${url}.`;
    case 'skipped':
      return `${result.dryRun ? 'Dry run: ' : ''}No comment on ${where}: ${result.reason}.`;
  }
}

/** The workflow run's page (where its artifacts are), on GitHub Actions. */
function runUrl(env: NodeJS.ProcessEnv): string | undefined {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repo, GITHUB_RUN_ID: run } = env;
  if (server === undefined || repo === undefined || run === undefined || !/^\d+$/.test(run)) return undefined;
  return `${server.replace(/\/+$/, '')}/${repo}/actions/runs/${run}`;
}

function withDefined<T extends Record<string, string | undefined>>(value: T): { [K in keyof T]?: string } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: string;
  };
}
