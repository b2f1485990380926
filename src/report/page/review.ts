import type { Decision } from '../../review/decisions.js';
import { byId, closestOf, el, option, tagOf } from './dom.js';
import { lightbox, lightboxItem, openLightbox, type LightboxItem } from './lightbox.js';
import { entries, state, type ReviewFilter } from './model.js';
import { exportDecisions, importDecisions } from './review-file.js';
import { canReview, decisionOf, loadDecisions, recordDecision, reviewIndex } from './review-store.js';
import { updateTally } from './review-tally.js';
import { noteField, renderCardReview, reviewBox, tileReviewBar } from './review-view.js';
import { refresh } from './view.js';

/**
 * The review's controls (#19.3): the buttons on every card, tile and the lightbox, where A, R and N
 * approve, reject and write a note for the result shown; the filter by decision, and the export and
 * import of a decisions file (review-file.ts), which is what
 * `runner apply FILE --run ID --replace-from decisions.json` re-generates from.
 */

function setDecision(index: number, file: number, decision: Decision | '' | undefined, note?: string): void {
  if (recordDecision(index, file, decision, note)) updateReviewViews(index);
}

function toggleDecision(index: number, file: number, decision: Decision): void {
  const current = decisionOf(entries[index]!, file);
  setDecision(index, file, current && current.decision === decision ? '' : decision);
}

function updateReviewViews(index: number): void {
  document
    .querySelectorAll('.card[data-index="' + index + '"]')
    .forEach((node) => renderCardReview(node, index));
  const item = lightboxItem();
  if (lightbox && item && item.index === index) {
    const section = lightbox.parts.details.querySelector('.lb-review .review');
    if (section) section.parentNode!.replaceChild(reviewBox(index, true, item.file), section);
  }
  updateTally();
}

function reviewIndexOf(node: Element): number {
  const cardNode = node.closest('[data-index]');
  if (cardNode) return Number(cardNode.getAttribute('data-index'));
  const item =
    lightbox && lightbox.parts.dialog.contains(node) ? lightbox.items[lightbox.position] : undefined;
  return item ? item.index : -1;
}

function onReviewClick(event: MouseEvent): void {
  const button = closestOf(event.target, '.review button');
  if (!button) return;
  const index = reviewIndexOf(button);
  if (index < 0) return;
  const bar = button.parentNode as Element;
  const file = Number(bar.getAttribute('data-review-file'));
  const decision = button.getAttribute('data-decision') as Decision | null;
  if (decision) {
    toggleDecision(index, file, decision);
    return;
  }
  const box = button.closest('.review')!;
  let area = box.querySelector<HTMLTextAreaElement>('textarea[data-review-file="' + file + '"]');
  if (!area) {
    area = noteField(index, file);
    box.insertBefore(area, bar.nextSibling);
  } else if (!area.value) area.hidden = !area.hidden;
  if (!area.hidden) area.focus();
}

function onReviewChange(event: Event): void {
  const area = event.target as HTMLTextAreaElement | null;
  if (!area || area.tagName !== 'TEXTAREA' || !area.classList.contains('review-note')) return;
  const index = reviewIndexOf(area);
  if (index >= 0) setDecision(index, Number(area.getAttribute('data-review-file')), undefined, area.value);
}

/**
 * A approves, R rejects, N writes a note: in the lightbox, the result shown (or the job when it has
 * one result); on a focused card or tile, the result focused (or the job), N in the lightbox.
 */
function onReviewKey(event: KeyboardEvent): void {
  const tag = tagOf(event.target);
  if (
    tag === 'TEXTAREA' ||
    tag === 'INPUT' ||
    tag === 'SELECT' ||
    event.altKey ||
    event.ctrlKey ||
    event.metaKey
  )
    return;
  const key = event.key.toLowerCase();
  if (key !== 'a' && key !== 'r' && key !== 'n') return;
  const inLightbox = lightbox !== null && lightbox.parts.dialog.open;
  const item = inLightbox ? lightbox!.items[lightbox!.position] : focusedItem(event.target);
  if (!item || !canReview(entries[item.index]!)) return;
  const file = entries[item.index]!.files.length > 1 && item.file >= 0 ? item.file + 1 : 0;
  event.preventDefault();
  if (key === 'a') toggleDecision(item.index, file, 'approved');
  else if (key === 'r') toggleDecision(item.index, file, 'rejected');
  else {
    if (!inLightbox) openLightbox(item.index, item.file);
    const area = lightbox!.parts.details.querySelector<HTMLTextAreaElement>(
      '.lb-review textarea[data-review-file="' + file + '"]',
    );
    if (area) {
      area.hidden = false;
      area.focus();
    }
  }
}

/** The job and result of the card or tile holding the focus, outside the lightbox. */
function focusedItem(target: EventTarget | null): LightboxItem | undefined {
  const node = closestOf(target, '#gallery .card[data-index], #grid .card[data-index]');
  if (!node) return undefined;
  const open = closestOf(target, '[data-file]');
  return {
    index: Number(node.getAttribute('data-index')),
    file: open ? Number(open.getAttribute('data-file')) : -1,
  };
}

/** A tile's ✓ and ✗ are made when the pointer or the focus first comes to it. */
function tileReviewOn(event: Event): void {
  const node = closestOf(event.target, '.tile[data-index]');
  if (!node || node.querySelector('.tile-review')) return;
  const index = Number(node.getAttribute('data-index'));
  if (canReview(entries[index]!)) node.appendChild(tileReviewBar(index));
}

/** The review's controls in the header, and its listeners (delegated: one each for every card). */
export function setupReview(): void {
  state.review = '';
  entries.forEach((entry, index) => reviewIndex.set(entry.id, index));
  loadDecisions();
  const controls = byId('controls');
  const label = el('label', '', 'decision ');
  const filter = el('select');
  filter.id = 'filter-review';
  ['', 'rejected', 'approved', 'to-review'].forEach((value) => option(filter, value, value || 'all'));
  filter.value = state.review || '';
  filter.addEventListener('change', () => {
    state.review = filter.value as ReviewFilter;
    refresh();
  });
  label.appendChild(filter);
  const bar = el('span', 'review-tools');
  const tally = el('span', 'review-tally', '');
  tally.id = 'review-tally';
  tally.setAttribute('role', 'status');
  bar.appendChild(tally);
  const exportButton = el('button', '', 'Export decisions');
  exportButton.type = 'button';
  exportButton.id = 'export-decisions';
  exportButton.addEventListener('click', exportDecisions);
  const input = el('input');
  input.type = 'file';
  input.accept = 'application/json,.json';
  input.id = 'import-decisions-file';
  input.hidden = true;
  input.addEventListener('change', () => {
    const file = input.files && input.files[0];
    if (!file) return;
    const reader = new FileReader();
    reader.onload = () => {
      // readAsText: the result is the file's text.
      importDecisions(reader.result as string, file.name);
      input.value = '';
    };
    reader.readAsText(file);
  });
  const importButton = el('button', '', 'Import…');
  importButton.type = 'button';
  importButton.id = 'import-decisions';
  importButton.addEventListener('click', () => input.click());
  bar.appendChild(exportButton);
  bar.appendChild(importButton);
  bar.appendChild(input);
  const message = el('span', 'review-message');
  message.id = 'review-message';
  message.setAttribute('aria-live', 'polite');
  bar.appendChild(message);
  controls.insertBefore(label, byId('shown'));
  controls.appendChild(bar);
  const next = el('div', 'next-step');
  next.id = 'next-step';
  next.hidden = true;
  next.setAttribute('aria-live', 'polite');
  controls.parentNode!.insertBefore(next, controls.nextSibling);
  document.addEventListener('keydown', onReviewKey);
  byId('grid').addEventListener('pointerover', tileReviewOn);
  byId('grid').addEventListener('focusin', tileReviewOn);
  document.addEventListener('click', onReviewClick);
  document.addEventListener('change', onReviewChange);
}
