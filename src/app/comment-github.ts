/**
 * `runner comment github`: posts a cost diff to its pull request as ONE comment, found again by its
 * hidden marker line, created, updated or replaced as `behavior` says, only when `when` says. Every
 * effect is a parameter (the GitHub client, the file reader), so the order of things is tested without
 * a network.
 */
import { RunnerError, UsageError } from '../errors.js';
import type { CostDiff } from '../diff/cost-diff.js';
import { commentMarker, renderDiffMarkdown, TAG_PATTERN } from '../diff/render-diff-markdown.js';
import type { GitHubClient, IssueComment, PullRequestRef } from '../github/client.js';

/** As Infracost's `--behavior`: edit our comment in place, add one each time, or delete ours and add one. */
export const COMMENT_BEHAVIORS = ['update', 'new', 'delete-and-new'] as const;
export type CommentBehavior = (typeof COMMENT_BEHAVIORS)[number];

/** When to comment: always, only when the cost changed, only when it went up. */
export const COMMENT_WHEN = ['always', 'changed', 'increased'] as const;
export type CommentWhen = (typeof COMMENT_WHEN)[number];

export const DEFAULT_GITHUB_API_URL = 'https://api.github.com';

export interface CommentGitHubInput {
  diff: CostDiff;
  pr: PullRequestRef;
  behavior: CommentBehavior;
  when: CommentWhen;
  tag?: string;
  /** Read the comments (when a client is given) and say what would be done; write nothing. */
  dryRun: boolean;
  /** Where the full diff is, named in the comment when it had to be cut. */
  fullReport?: { path?: string; url?: string };
  /**
   * Whose comments are ours when the token cannot read its own user (`GET /user` answers 403 to an
   * app's installation token): on GitHub Actions, `github-actions[bot]`.
   */
  fallbackLogin?: string;
}

/** What was done (or, in a dry run, would be done). */
export interface CommentGitHubResult {
  /**
   * `created`: a new comment; `updated`: ours edited; `replaced`: ours deleted and a new one created;
   * `unchanged`: ours already says this (nothing sent); `skipped`: `when` not met and no comment of ours.
   */
  action: 'created' | 'updated' | 'replaced' | 'unchanged' | 'skipped';
  dryRun: boolean;
  /** `owner/name#number`. */
  pullRequest: string;
  /** The comment posted or kept (in a dry run: the one that would be edited). */
  commentId?: number;
  url?: string;
  /** Comments of ours deleted (`delete-and-new`). */
  deleted: number[];
  /** Why this action, in one sentence. */
  reason: string;
  /** Whether any per-run or per-month figure moved. */
  costChanged: boolean;
  /** Whether the total per run or per month went up. */
  costIncreased: boolean;
  /** In a dry run, whether the existing comments were read (not without a token). */
  readExisting: boolean;
  /** The comment's Markdown. */
  body: string;
}

/** Whether any manifest's per-run or per-month cost moved (a schedule change moves only the latter). */
export function costChanged(diff: CostDiff): boolean {
  if (diff.total.delta !== 0 || (diff.totalPerMonth?.delta ?? 0) !== 0) return true;
  return diff.manifests.some((m) => m.perRun.delta !== 0 || (m.perMonth?.delta ?? 0) !== 0);
}

/** Whether the total went up, per run or per month. */
export function costIncreased(diff: CostDiff): boolean {
  return diff.total.delta > 0 || (diff.totalPerMonth?.delta ?? 0) > 0;
}

/** Whether `comment` is ours: its first line is the marker for this tag (a quote of it is not). */
export function isOurComment(comment: Pick<IssueComment, 'body'>, marker: string): boolean {
  const end = comment.body.indexOf('\n');
  const first = end === -1 ? comment.body : comment.body.slice(0, end);
  return first.trimEnd() === marker;
}

/** What to do, from the comments there are; pure. */
export type CommentPlan =
  | { kind: 'create' }
  | { kind: 'update'; comment: IssueComment }
  | { kind: 'replace'; comments: IssueComment[] }
  | { kind: 'unchanged'; comment: IssueComment }
  | { kind: 'skip' };

/**
 * The decision: with `update`, our newest comment is edited, and edited even when `when` is not met (a
 * comment that still says "+1,240 credits" after the pull request went back to no change would mislead);
 * only without a comment of ours does an unmet `when` skip. With `delete-and-new` likewise: ours are
 * replaced whatever `when` says, and nothing is posted when there are none and `when` is not met. With
 * `new`, a comment is added when `when` is met. An edit to the same text is not sent.
 */
export function planComment(input: {
  behavior: CommentBehavior;
  met: boolean;
  ours: IssueComment[];
  body: string;
}): CommentPlan {
  const latest = input.ours.at(-1);
  if (input.behavior === 'new' || latest === undefined)
    return input.met ? { kind: 'create' } : { kind: 'skip' };
  if (input.behavior === 'delete-and-new') return { kind: 'replace', comments: input.ours };
  return latest.body === input.body
    ? { kind: 'unchanged', comment: latest }
    : { kind: 'update', comment: latest };
}

/**
 * Renders the comment, reads the pull request's comments, and creates, updates, replaces or skips.
 * `client` may be undefined only in a dry run (no token): the comments are then not read.
 */
export async function commentGitHub(
  input: CommentGitHubInput,
  effects: { client: GitHubClient | undefined },
): Promise<CommentGitHubResult> {
  const marker = commentMarker(input.tag);
  const body = renderDiffMarkdown(input.diff, {
    ...(input.tag === undefined ? {} : { tag: input.tag }),
    ...(input.fullReport === undefined ? {} : { fullReport: input.fullReport }),
  });
  const changed = costChanged(input.diff);
  const increased = costIncreased(input.diff);
  const met = input.when === 'always' || (input.when === 'changed' ? changed : increased);
  const { client } = effects;
  if (client === undefined && !input.dryRun) throw new Error('commentGitHub needs a client unless dryRun');
  // Issue #32.5: only comments the token's own user wrote are edited or deleted; another person's
  // comment that starts with the marker is left alone. Unknown user: nothing is ours, a new one is added.
  const login = client === undefined ? undefined : ((await client.getTokenLogin()) ?? input.fallbackLogin);
  const ours =
    client === undefined || login === undefined
      ? []
      : (await client.listIssueComments(input.pr)).filter(
          (c) => isOurComment(c, marker) && c.user?.login === login,
        );
  const plan = planComment({ behavior: input.behavior, met, ours, body });
  const pullRequest = `${input.pr.owner}/${input.pr.repo}#${input.pr.number}`;
  const result = {
    dryRun: input.dryRun,
    pullRequest,
    deleted: [] as number[],
    costChanged: changed,
    costIncreased: increased,
    readExisting: client !== undefined,
    body,
  };
  const notMet = input.when === 'changed' ? 'the cost did not change' : 'the cost did not increase';
  switch (plan.kind) {
    case 'skip':
      return {
        ...result,
        action: 'skipped',
        reason: `${notMet} (--when ${input.when}) and there is no cost comment to refresh`,
      };
    case 'unchanged':
      return {
        ...result,
        action: 'unchanged',
        commentId: plan.comment.id,
        url: plan.comment.html_url,
        reason: 'the cost comment already says this',
      };
    case 'update': {
      const reason = met
        ? 'a cost comment exists (--behavior update)'
        : `${notMet}, but the cost comment is refreshed so it does not say otherwise`;
      const comment =
        input.dryRun || client === undefined
          ? plan.comment
          : await client.updateIssueComment(input.pr, plan.comment.id, body);
      return { ...result, action: 'updated', commentId: comment.id, url: comment.html_url, reason };
    }
    case 'create': {
      const reason = ours.length > 0 ? 'a new comment each time (--behavior new)' : 'no cost comment yet';
      if (input.dryRun || client === undefined) {
        return {
          ...result,
          action: 'created',
          reason: client === undefined ? 'the comments were not read without a token' : reason,
        };
      }
      const comment = await client.createIssueComment(input.pr, body);
      return { ...result, action: 'created', commentId: comment.id, url: comment.html_url, reason };
    }
    case 'replace': {
      const ids = plan.comments.map((c) => c.id);
      const reason = `${ids.length} cost comment${ids.length === 1 ? '' : 's'} deleted and a new one created (--behavior delete-and-new)`;
      if (input.dryRun || client === undefined)
        return { ...result, action: 'replaced', deleted: ids, reason };
      // Created first: if the create fails, the old comment still stands.
      const comment = await client.createIssueComment(input.pr, body);
      for (const id of ids) await client.deleteIssueComment(input.pr, id);
      return {
        ...result,
        action: 'replaced',
        deleted: ids,
        commentId: comment.id,
        url: comment.html_url,
        reason,
      };
    }
  }
}

/**
 * The pull request to comment on: `--repo owner/name` and `--pull-request N`, else GitHub Actions'
 * `GITHUB_REPOSITORY` and the pull request's number in the event file at `GITHUB_EVENT_PATH`.
 */
export async function resolvePullRequest(
  flags: { repo?: string; pullRequest?: string },
  env: NodeJS.ProcessEnv,
  readText: (file: string) => Promise<string>,
): Promise<PullRequestRef> {
  const repo = flags.repo ?? nonEmpty(env.GITHUB_REPOSITORY);
  if (repo === undefined) {
    throw new UsageError('No repository to comment on.', {
      hint: 'Pass --repo owner/name (on GitHub Actions, GITHUB_REPOSITORY gives it).',
    });
  }
  const match = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)$/.exec(repo);
  if (match === null) {
    throw new UsageError(
      `${flags.repo === undefined ? 'GITHUB_REPOSITORY' : '--repo'} must be owner/name; received "${repo.slice(0, 100)}".`,
    );
  }
  const number = flags.pullRequest ?? (await readEventNumber(env, readText));
  if (number === undefined) {
    throw new UsageError('No pull request to comment on.', {
      hint: 'Pass --pull-request N, or run on a `pull_request` event (GITHUB_EVENT_PATH holds its number).',
    });
  }
  if (!/^[1-9][0-9]{0,9}$/.test(number)) {
    throw new UsageError(`--pull-request must be a pull request number; received "${number.slice(0, 40)}".`);
  }
  return { owner: match[1]!, repo: match[2]!, number: Number(number) };
}

async function readEventNumber(
  env: NodeJS.ProcessEnv,
  readText: (file: string) => Promise<string>,
): Promise<string | undefined> {
  const file = nonEmpty(env.GITHUB_EVENT_PATH);
  if (file === undefined) return undefined;
  let event: { pull_request?: { number?: unknown }; issue?: { number?: unknown; pull_request?: unknown } };
  try {
    event = JSON.parse(await readText(file)) as typeof event;
  } catch (error) {
    throw new RunnerError(
      'INVALID_INPUT',
      `Cannot read the event file GITHUB_EVENT_PATH=${file}: ${(error as Error).message}.`,
    );
  }
  // pull_request and pull_request_target events; issue_comment on a pull request (an issue with `pull_request`).
  const number =
    event.pull_request?.number ?? (event.issue?.pull_request === undefined ? undefined : event.issue.number);
  return typeof number === 'number' ? String(number) : undefined;
}

/**
 * The token: `--github-token-file` (its first line), else `GITHUB_TOKEN`. Never a flag value, so it is
 * never in a process list or a shell history. Undefined when neither is set.
 */
export async function readGitHubToken(
  tokenFile: string | undefined,
  env: NodeJS.ProcessEnv,
  readText: (file: string) => Promise<string>,
): Promise<string | undefined> {
  if (tokenFile !== undefined) {
    let text: string;
    try {
      text = await readText(tokenFile);
    } catch (error) {
      throw new RunnerError(
        'INVALID_INPUT',
        `Cannot read --github-token-file ${tokenFile}: ${(error as NodeJS.ErrnoException).code ?? 'error'}.`,
      );
    }
    const token = text.split(/\r?\n/)[0]?.trim() ?? '';
    if (token === '') throw new RunnerError('AUTHENTICATION', `--github-token-file ${tokenFile} is empty.`);
    return token;
  }
  return nonEmpty(env.GITHUB_TOKEN?.trim());
}

/** `--github-api-url`, else `GITHUB_API_URL` (set by Actions, a GHES host's `/api/v3` there), else api.github.com. */
export function resolveApiUrl(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  const url = flag ?? nonEmpty(env.GITHUB_API_URL) ?? DEFAULT_GITHUB_API_URL;
  const name = flag === undefined ? 'GITHUB_API_URL' : '--github-api-url';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`${name} must be a URL; received "${url.slice(0, 100)}".`);
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(parsed.hostname);
  // The token must not cross the network in clear text; plain http only to this machine (tests).
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && loopback)) {
    throw new UsageError(`${name} must be an https:// URL; received "${url.slice(0, 100)}".`);
  }
  if (parsed.username !== '' || parsed.password !== '' || parsed.search !== '' || parsed.hash !== '') {
    throw new UsageError(`${name} must be a plain base URL (no credentials, query or fragment).`);
  }
  return parsed.href.replace(/\/+$/, '');
}

/** Checks `--tag`. */
export function checkTag(tag: string | undefined): void {
  if (tag !== undefined && !TAG_PATTERN.test(tag)) {
    throw new UsageError(
      `--tag may hold letters, digits, ".", "_" and "-" (1 to 64); received "${tag.slice(0, 80)}".`,
    );
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
