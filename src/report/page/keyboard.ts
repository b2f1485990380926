import { byId, closestOf } from './dom.js';
import { entries, state } from './model.js';
import { openLightbox } from './lightbox.js';
import { cardOf, galleryWindow, gridWindow } from './window.js';

/**
 * Opening the lightbox from a card, and the keyboard between cards: arrow keys move the focus between
 * thumbnails, in the gallery by its columns, in the grid by its cells; Home/End go to the first/last
 * shown result (its card made if it was far from the view).
 */

function onOpenClick(event: MouseEvent): void {
  const target = closestOf(event.target, '.open');
  if (!target || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey)
    return;
  const cardNode = target.closest('[data-index]');
  if (!cardNode) return;
  event.preventDefault();
  openLightbox(
    Number(cardNode.getAttribute('data-index')),
    target.hasAttribute('data-file') ? Number(target.getAttribute('data-file')) : -1,
  );
}

// Neighbours by the view's order, not by the cards in the DOM: only those near the view are.
function galleryNeighbour(cardNode: Element, key: string): HTMLElement | undefined {
  const shown = galleryWindow.shown;
  if (key === 'Home') return cardOf(shown[0]!);
  if (key === 'End') return cardOf(shown[shown.length - 1]!);
  const columns = getComputedStyle(byId('gallery')).gridTemplateColumns.split(' ').length;
  const steps: Record<string, number> = {
    ArrowLeft: -1,
    ArrowRight: 1,
    ArrowUp: -columns,
    ArrowDown: columns,
  };
  const position = galleryWindow.positions.get(Number(cardNode.getAttribute('data-index')))! + steps[key]!;
  return position >= 0 && position < shown.length ? cardOf(shown[position]!) : undefined;
}

function gridNeighbour(cardNode: Element, key: string): HTMLElement | undefined {
  const order = gridWindow.order;
  if (key === 'Home') return cardOf(order[0]!);
  if (key === 'End') return cardOf(order[order.length - 1]!);
  const at = gridWindow.at.get(Number(cardNode.getAttribute('data-index')))!;
  const forward = key === 'ArrowRight' || key === 'ArrowDown' ? 1 : -1;
  if (key === 'ArrowLeft' || key === 'ArrowRight') {
    const next = order[at.order + forward];
    return next === undefined ? undefined : cardOf(next);
  }
  // Up and down go on into the grid above or below (a third axis' next value), by the same column.
  const col = cardNode.closest('td')!.getAttribute('data-col')!;
  const rows = gridWindow.rows;
  for (let row = at.row + forward; row >= 0 && row < rows.length; row += forward) {
    const found = rows[row]!.byCol.get(col);
    if (found && found.length > 0) return cardOf(found[0]!);
  }
  return undefined;
}

function onArrowKey(event: KeyboardEvent): void {
  const target = closestOf(event.target, '.open') as HTMLElement | null;
  if (!target || event.altKey || event.ctrlKey || event.metaKey) return;
  if ((event.key === 'Enter' || event.key === ' ') && !target.hasAttribute('href')) {
    event.preventDefault();
    target.click();
    return;
  }
  if (['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End'].indexOf(event.key) < 0) return;
  const cardNode = target.closest('.card')!;
  // Left and right go through a card's results first.
  const own = Array.from(cardNode.querySelectorAll<HTMLElement>('.open'));
  const at = own.indexOf(target) + (event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0);
  let next: HTMLElement | undefined;
  if (at !== own.indexOf(target) && own[at]) next = own[at];
  else {
    const neighbour =
      state.view === 'grid' ? gridNeighbour(cardNode, event.key) : galleryNeighbour(cardNode, event.key);
    if (!neighbour) return;
    const targets = neighbour.querySelectorAll<HTMLElement>('.open');
    next = event.key === 'ArrowLeft' ? targets[targets.length - 1] : targets[0];
  }
  if (!next) return;
  event.preventDefault();
  next.focus({ preventScroll: true });
  next.scrollIntoView({ block: 'nearest' });
}

/** Clicks and keys on the cards; opens the job the hash names (open=ID&file=N). */
export function setupLightbox(params: URLSearchParams): void {
  ['gallery', 'grid'].forEach((id) => {
    byId(id).addEventListener('click', onOpenClick);
    byId(id).addEventListener('keydown', onArrowKey);
  });
  const wanted = params.get('open');
  if (wanted === null) return;
  for (let index = 0; index < entries.length; index++) {
    if (entries[index]!.id !== wanted) continue;
    const file = Number(params.get('file') || '1') - 1;
    const count = entries[index]!.files.length;
    openLightbox(index, file >= 0 && file < count ? file : count > 0 ? 0 : -1);
    return;
  }
}
