/**
 * Links come from the runner (relative paths) or the service (result URLs); allow nothing else. The
 * scheme is read as the URL parser reads it (issue #32.8): leading and trailing C0 controls and spaces
 * cut, tabs and newlines removed anywhere, so " javascript:" and "java\tscript:" are caught too.
 * (test/unit/report/safe-href.test.ts takes this function from the bundled page script.)
 */
export function safeHref(href: string): string {
  const url = String(href)
    .replace(/[\t\n\r]/g, '')
    // eslint-disable-next-line no-control-regex -- C0 controls are what the URL parser cuts.
    .replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '');
  return /^[a-z][a-z0-9+.-]*:/i.test(url) && !/^https?:/i.test(url) ? '#' : url;
}
