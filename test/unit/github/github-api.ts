/**
 * GitHub's REST API for issue comments as its docs show it (https://docs.github.com/en/rest/issues/comments,
 * API version 2022-11-28): the shapes nock answers with in the comment tests.
 */
export const API = 'https://api.github.com';
export const TOKEN = 'ghs_16C7e42F292c6912E7710c838347Ae178B4a';

/** An issue comment as `GET /repos/{owner}/{repo}/issues/{n}/comments` lists it. */
export function issueComment(id: number, body: string, login = 'github-actions[bot]') {
  return {
    id,
    node_id: `IC_kwDOA${id}`,
    url: `${API}/repos/octo-org/pipelines/issues/comments/${id}`,
    html_url: `https://github.com/octo-org/pipelines/pull/42#issuecomment-${id}`,
    body,
    user: { login, id: 41898282, type: login.endsWith('[bot]') ? 'Bot' : 'User' },
    created_at: '2026-11-24T10:00:00Z',
    updated_at: '2026-11-24T10:00:00Z',
    issue_url: `${API}/repos/octo-org/pipelines/issues/42`,
    author_association: 'NONE',
  };
}

/** Error bodies as GitHub sends them. */
export const errors = {
  badCredentials: {
    message: 'Bad credentials',
    documentation_url: 'https://docs.github.com/rest',
    status: '401',
  },
  notAccessible: {
    message: 'Resource not accessible by integration',
    documentation_url: 'https://docs.github.com/rest/issues/comments#create-an-issue-comment',
    status: '403',
  },
  rateLimited: {
    message: 'API rate limit exceeded for installation ID 1234567.',
    documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api',
    status: '403',
  },
  notFound: {
    message: 'Not Found',
    documentation_url: 'https://docs.github.com/rest/issues/comments#list-issue-comments',
    status: '404',
  },
  tooLong: {
    message: 'Validation Failed',
    errors: [
      {
        resource: 'IssueComment',
        code: 'custom',
        field: 'body',
        message: 'body is too long (maximum is 65536 characters)',
      },
    ],
    documentation_url: 'https://docs.github.com/rest/issues/comments#create-an-issue-comment',
    status: '422',
  },
};
