import type { ValidationIssue } from '../../manifest/types.js';

/** Whether this process runs as a GitHub Actions step (the runner sets `GITHUB_ACTIONS=true`). */
export function isGithubActions(env: NodeJS.ProcessEnv): boolean {
  return env.GITHUB_ACTIONS === 'true';
}

/**
 * Issues as GitHub Actions workflow commands (`::error file=…,line=…,col=…,title=…::message`), which
 * GitHub shows as annotations on the manifest's lines. One line per issue; the hint joins the message.
 * `manifestFile` is used for issues without a location of their own.
 */
export function renderAnnotations(issues: readonly ValidationIssue[], manifestFile: string): string[] {
  return issues.map((issue) => {
    const properties = [`file=${escapeProperty(issue.location?.file ?? manifestFile)}`];
    if (issue.location !== undefined) {
      properties.push(`line=${issue.location.line}`, `col=${issue.location.col}`);
    }
    properties.push(
      `title=${escapeProperty(issue.jobId === undefined ? issue.code : `${issue.code} (${issue.jobId})`)}`,
    );
    const message = issue.hint === undefined ? issue.message : `${issue.message}\n${issue.hint}`;
    return `::${issue.severity} ${properties.join(',')}::${escapeData(message)}`;
  });
}

/** The escaping of the Actions toolkit (`@actions/core` command.ts): data and property values. */
function escapeData(text: string): string {
  return text.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
}

function escapeProperty(text: string): string {
  return escapeData(text).replaceAll(':', '%3A').replaceAll(',', '%2C');
}
