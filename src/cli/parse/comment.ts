import {
  checkTag,
  COMMENT_BEHAVIORS,
  COMMENT_WHEN,
  type CommentBehavior,
  type CommentWhen,
} from '../../app/comment-github.js';
import { parseStringOption } from './values.js';
import { UsageError } from '../../errors.js';
import type { Flags } from './common.js';

const PROVIDERS = ['github'] as const;

/** What `runner comment PROVIDER` is asked. */
export interface CommentOptions {
  provider: (typeof PROVIDERS)[number];
  /** `--path`: the cost diff JSON. */
  path: string;
  behavior: CommentBehavior;
  when: CommentWhen;
  format: 'text' | 'json';
  /** `--tag`: keeps this comment apart from other cost comments (checked). */
  tag?: string;
  dryRun: boolean;
  /** `--github-api-url`, `--github-token-file`, `--repo`, `--pull-request`, when given. */
  githubApiUrl?: string;
  githubTokenFile?: string;
  repo?: string;
  pullRequest?: string;
}

/**
 * `runner comment PROVIDER` arguments and flags → {@link CommentOptions}, every one checked before
 * anything is read or sent: the provider, `--path`, the choices, the tag.
 */
export function parseCommentOptions(args: readonly string[], flags: Flags): CommentOptions {
  const [provider = ''] = args;
  if (!(PROVIDERS as readonly string[]).includes(provider)) {
    throw new UsageError(
      `\`runner comment\` posts to ${PROVIDERS.join(', ')}; received "${provider.slice(0, 40)}".`,
      {
        hint: 'runner comment github --path diff.json',
      },
    );
  }
  const path = parseStringOption(flags.path);
  if (path === undefined) {
    throw new UsageError(
      '`runner comment github` needs --path: the cost diff (`runner diff … --format json`).',
    );
  }
  const behavior = readChoice('behavior', flags.behavior, COMMENT_BEHAVIORS, 'update');
  const when = readChoice('when', flags.when, COMMENT_WHEN, 'always');
  const format = readChoice('format', flags.format, ['text', 'json'] as const, 'text');
  const tag = parseStringOption(flags.tag);
  checkTag(tag);
  const optional = {
    tag,
    githubApiUrl: parseStringOption(flags.githubApiUrl),
    githubTokenFile: parseStringOption(flags.githubTokenFile),
    repo: parseStringOption(flags.repo),
    pullRequest: parseStringOption(flags.pullRequest),
  };
  return {
    provider: provider as CommentOptions['provider'],
    path,
    behavior,
    when,
    format,
    dryRun: flags.dryRun === true,
    ...(Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== undefined)) as {
      [K in keyof typeof optional]?: string;
    }),
  };
}

function readChoice<T extends string>(flag: string, value: unknown, choices: readonly T[], fallback: T): T {
  const given = parseStringOption(value);
  if (given === undefined) return fallback;
  if ((choices as readonly string[]).includes(given)) return given as T;
  throw new UsageError(`--${flag} expects one of ${choices.join(', ')}, received "${given.slice(0, 40)}".`);
}
