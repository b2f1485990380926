/**
 * The `rel="next"` URL of a `Link` header (RFC 8288), as GitHub paginates lists:
 * `<https://api.github.com/repositories/1/issues/2/comments?per_page=100&page=2>; rel="next", <…>; rel="last"`.
 * Undefined when there is no next page.
 */
export function nextPageUrl(link: string | string[] | undefined): string | undefined {
  const text = Array.isArray(link) ? link.join(', ') : link;
  if (text === undefined) return undefined;
  for (const part of text.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (match === null) continue;
    const rels = /;\s*rel\s*=\s*"?([^";]+)"?/i.exec(match[2] ?? '')?.[1]?.split(/\s+/) ?? [];
    if (rels.includes('next')) return match[1];
  }
  return undefined;
}
