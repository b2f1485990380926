/** The page's small DOM helpers: elements are made with `textContent` only, never from HTML text. */

/** An element of the page's own markup (`render-html.ts` writes every id the script asks for). */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  return document.getElementById(id) as T;
}

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string | number | null,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

export function option(select: HTMLSelectElement, value: string, label?: string): HTMLOptionElement {
  const node = el('option', '', label === undefined ? value : label);
  node.value = value;
  select.appendChild(node);
  return node;
}

export function shorten(text: string, max: number): string {
  return text.length > max ? text.slice(0, max - 1) + '…' : text;
}

/** A relative link as the path it was made from (the runner percent-encodes each segment). */
export function filePath(href: string): string {
  try {
    return decodeURIComponent(href);
  } catch {
    return href;
  }
}

/**
 * An instant in the reader's time zone, named (`27 Nov 2026, 16:00 GMT+9`): for when the run was made,
 * which the runner wrote in UTC. Not a time: `undefined`.
 */
export function formatZonedTime(iso: string): string | undefined {
  const date = new Date(iso);
  if (isNaN(date.getTime())) return undefined;
  return date.toLocaleString(undefined, {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'short',
  });
}

export function formatTime(iso: string): string {
  const date = new Date(iso);
  return isNaN(date.getTime())
    ? iso
    : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** The element an event came from, or its nearest ancestor matching `selector` (null: none). */
export function closestOf(target: EventTarget | null, selector: string): Element | null {
  const node = target as Element | null;
  return node && typeof node.closest === 'function' ? node.closest(selector) : null;
}

/** The tag name of an event's target (undefined for a target that is no element). */
export function tagOf(target: EventTarget | null): string | undefined {
  return (target as Element | null)?.tagName;
}
