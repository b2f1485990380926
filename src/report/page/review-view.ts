import { MAX_NOTE_LENGTH } from '../../review/decisions.js';
import type { PageEntry } from '../page-data.js';
import { el, filePath } from './dom.js';
import { entries } from './model.js';
import { canReview, decisionOf, reviewIndex, verdictOf } from './review-store.js';
import { safeHref } from './safe-href.js';

/**
 * What the review (#19.3) adds to cards, tiles and the lightbox: approve or reject, with a note, each
 * job and each of its results, and the results a later attempt replaced beside the new ones
 * ("rejected → replaced by attempt N" with the reviewer's note). The clicks and keys are review.ts'.
 */

/** One bar per job or result: the buttons only (clicks are delegated: 5,000 cards, no listener each). */
function decisionButtons(index: number, file: number, label: string): HTMLDivElement {
  const current = decisionOf(entries[index]!, file);
  const bar = el('div', 'review-bar');
  bar.setAttribute('data-review-file', String(file || 0));
  if (label) bar.appendChild(el('span', 'review-label', label));
  [
    ['approved', '✓ Approve'],
    ['rejected', '✗ Reject'],
  ].forEach(([decision, text]) => {
    const button = el('button', 'review-' + decision, text);
    button.type = 'button';
    button.setAttribute('data-decision', decision!);
    button.setAttribute('aria-pressed', String(!!current && current.decision === decision));
    bar.appendChild(button);
  });
  const note = el('button', 'review-note-toggle', current && current.note ? 'Note ✎' : 'Note');
  note.type = 'button';
  bar.appendChild(note);
  return bar;
}

/** A note field is made when there is a note, when asked for, and always in the lightbox. */
export function noteField(index: number, file: number): HTMLTextAreaElement {
  const current = decisionOf(entries[index]!, file);
  const area = el('textarea', 'review-note');
  area.setAttribute('data-review-file', String(file || 0));
  area.setAttribute('aria-label', 'Note on ' + entries[index]!.id + (file ? ' result ' + file : ''));
  area.maxLength = MAX_NOTE_LENGTH;
  area.rows = 2;
  area.placeholder = 'Why? (kept with the decision, shown beside the new result)';
  area.value = current && current.note ? current.note : '';
  return area;
}

export function reviewBox(index: number, inLightbox: boolean, shownFile?: number): HTMLDivElement {
  const entry = entries[index]!;
  const box = el('div', 'review');
  const many = entry.files.length > 1;
  const add = (file: number, label: string): void => {
    box.appendChild(decisionButtons(index, file, label));
    const current = decisionOf(entry, file);
    if (inLightbox || (current && current.note)) box.appendChild(noteField(index, file));
  };
  add(0, many || inLightbox ? 'job' : '');
  entry.files.forEach((_file, at) => {
    if (many && !(inLightbox && shownFile !== at)) add(at + 1, 'result ' + (at + 1));
  });
  return box;
}

/** Results a later attempt replaced, beside the new ones (the files are kept in .superseded/attempt-N/). */
function replacedBox(entry: PageEntry, large: boolean): HTMLDivElement {
  const box = el('div', 'replaced');
  (entry.replaced ?? []).forEach((old) => {
    const item = el('div', 'replaced-attempt' + (old.rejected ? ' rejected' : ''));
    const caption =
      'attempt ' +
      old.attempt +
      (old.rejected ? ' · rejected → replaced by attempt ' : ' · replaced by attempt ') +
      old.replacedBy;
    item.appendChild(el('div', 'replaced-caption', caption));
    const row = el('div', 'replaced-files');
    old.files.forEach((file, at) => {
      const link = el('a', 'replaced-file');
      link.href = safeHref(file.href);
      link.target = '_blank';
      link.rel = 'noopener';
      if (file.mediaType === 'image') {
        const img = el('img');
        img.loading = large ? 'eager' : 'lazy';
        img.alt = entry.id + ' attempt ' + old.attempt + ' result ' + (at + 1);
        img.src = link.href;
        img.addEventListener('error', () => {
          link.textContent = 'file not found: ' + filePath(file.href);
        });
        link.appendChild(img);
      } else link.textContent = 'result ' + (at + 1) + ' (' + file.mediaType + ')';
      row.appendChild(link);
    });
    item.appendChild(row);
    if (old.note) item.appendChild(el('div', 'replaced-note', old.note));
    box.appendChild(item);
  });
  return box;
}

/**
 * What the review adds to a gallery card: its verdict, the replaced attempts and the decision buttons
 * under its body (cards are made only near the view: window.ts).
 */
export function reviewCard(node: HTMLElement, body: HTMLElement, index: number): void {
  const entry = entries[index]!;
  node.setAttribute('data-verdict', verdictOf(index));
  if (entry.replaced && entry.replaced.length > 0) body.appendChild(replacedBox(entry, false));
  if (canReview(entry)) body.appendChild(reviewBox(index, false));
}

/**
 * What the review adds to a grid tile: a grid cell is the image alone, to compare at a glance. Its
 * verdict and replaced attempts are marks drawn by CSS from its attributes; its ✓/✗ are made when the
 * pointer or the focus first comes to it (review.ts' tileReviewOn), and A/R/N decide on the focused
 * tile as in the lightbox. Buttons under every tile made a grid of 64 px images three times as tall,
 * and twice the nodes to lay out.
 */
export function reviewTile(node: HTMLElement, index: number): void {
  const entry = entries[index]!;
  node.setAttribute('data-verdict', verdictOf(index));
  if (entry.replaced && entry.replaced.length > 0) {
    const last = entry.replaced[entry.replaced.length - 1]!;
    node.setAttribute('data-replaced', last.rejected ? 'rejected' : 'replaced');
    node.title +=
      ' · attempt ' +
      last.attempt +
      (last.rejected ? ' rejected, ' : ' ') +
      'replaced by attempt ' +
      last.replacedBy +
      ' (both in the lightbox)';
  }
  if (canReview(entry)) node.title += ' · A approve · R reject · N note';
}

/** A tile's ✓ and ✗ (the job's decision; a result's own, and notes, in the lightbox). */
export function tileReviewBar(index: number): HTMLDivElement {
  const current = decisionOf(entries[index]!, 0);
  const box = el('div', 'review tile-review');
  const bar = el('div', 'review-bar');
  bar.setAttribute('data-review-file', '0');
  [
    ['approved', '✓', 'Approve '],
    ['rejected', '✗', 'Reject '],
  ].forEach(([decision, text, label]) => {
    const button = el('button', 'review-' + decision, text);
    button.type = 'button';
    button.setAttribute('data-decision', decision!);
    button.setAttribute('aria-label', label! + entries[index]!.id);
    button.setAttribute('aria-pressed', String(!!current && current.decision === decision));
    bar.appendChild(button);
  });
  box.appendChild(bar);
  return box;
}

/** What the review adds to the lightbox's details: decisions on the job and the result shown, and the replaced attempts. */
export function reviewDetails(box: DocumentFragment, entry: PageEntry, fileIndex: number): void {
  const index = reviewIndex.get(entry.id)!;
  if (canReview(entry)) {
    const section = el('section', 'lb-review');
    section.appendChild(el('h3', '', 'Review (A approve · R reject · N note)'));
    section.appendChild(reviewBox(index, true, fileIndex));
    box.appendChild(section);
  }
  if (entry.replaced && entry.replaced.length > 0) {
    box.appendChild(el('h3', '', 'Replaced attempts'));
    box.appendChild(replacedBox(entry, true));
  }
}

/** A card's review made again after a decision changed. */
export function renderCardReview(node: Element, index: number): void {
  node.setAttribute('data-verdict', verdictOf(index));
  const old = node.querySelector('.review');
  if (old)
    old.parentNode!.replaceChild(
      old.classList.contains('tile-review') ? tileReviewBar(index) : reviewBox(index, false),
      old,
    );
}
