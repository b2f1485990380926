import { matrixText, paramText } from './axes.js';
import { el } from './dom.js';
import { entries } from './model.js';
import { reasonOf } from './reason.js';
import { reviewCard, reviewTile } from './review-view.js';
import { thumb } from './thumbs.js';

/**
 * A job's card in the gallery, and its tile in the grid. Built with `textContent` and `setAttribute`
 * only, never HTML strings, so nothing a user wrote can become markup.
 */
export function card(index: number): HTMLElement {
  const entry = entries[index]!;
  const compact = entry.files.length === 0;
  const node = el('article', 'card status-' + entry.status + (compact ? ' compact' : ''));
  node.setAttribute('data-id', entry.id);
  node.setAttribute('data-index', String(index));
  node.setAttribute('data-status', entry.status);
  if (!compact) node.appendChild(thumb(entry));
  const body = el('div', 'body');
  const title = el('h2', 'id', entry.id + ' ');
  title.appendChild(el('span', 'badge ' + entry.status, entry.status));
  body.appendChild(title);
  if (compact || entry.status !== 'done') body.appendChild(reasonOf(entry));
  if (entry.prompt !== undefined) body.appendChild(el('div', 'prompt', entry.prompt));
  const matrix = matrixText(entry);
  if (matrix !== '') body.appendChild(el('div', 'facts matrix', matrix));
  const facts = [
    entry.model,
    entry.kind,
    entry.credits + ' credits',
    entry.attempts + (entry.attempts === 1 ? ' attempt' : ' attempts'),
  ];
  if (entry.serviceJobId) facts.push('job ' + entry.serviceJobId);
  if (entry.machine) facts.push('on ' + entry.machine);
  body.appendChild(el('div', 'facts', facts.join(' · ')));
  if (!compact) {
    const params = Object.keys(entry.params).map((name) => name + ': ' + paramText(entry.params[name]));
    if (params.length > 0) body.appendChild(el('div', 'facts params', params.join(' · ')));
  } else {
    const details = el('button', 'open details', 'Details');
    details.type = 'button';
    body.appendChild(details);
  }
  reviewCard(node, body, index);
  node.appendChild(body);
  return node;
}

/**
 * A grid cell's result: the image only (its job and status in its name and tooltip; no prompt or
 * facts), and what the review marks on it; a job without a result shows its status. Class card, so
 * the lightbox, the review and the arrow keys treat it as one.
 */
export function tile(index: number): HTMLElement {
  const entry = entries[index]!;
  const node = el('div', 'card tile status-' + entry.status);
  node.setAttribute('data-id', entry.id);
  node.setAttribute('data-index', String(index));
  node.setAttribute('data-status', entry.status);
  node.title = entry.id + ' · ' + entry.status + (matrixText(entry) ? ' · ' + matrixText(entry) : '');
  if (entry.files.length > 0) node.appendChild(thumb(entry));
  else {
    const open = el('button', 'open state-box', entry.status);
    open.type = 'button';
    open.setAttribute('aria-label', entry.id + ': ' + entry.status);
    node.appendChild(open);
  }
  reviewTile(node, index);
  return node;
}
