import type { PageEntry, PageFile } from '../page-data.js';
import { labelOf, paramText, valueKey } from './axes.js';
import { copyText } from './copy.js';
import { el, filePath, formatTime, tagOf } from './dom.js';
import { data, entries } from './model.js';
import { reasonOf } from './reason.js';
import { reviewDetails } from './review-view.js';
import { safeHref } from './safe-href.js';
import { isExpired, isUnavailable, stateBox } from './thumbs.js';
import { setHashExtra, writeHash } from './view.js';
import { cardOf, viewOrder } from './window.js';

/**
 * The lightbox: a click (or Enter) on a thumbnail opens the result full size in a modal `<dialog>`
 * with the job's prompt (and a copy button), status, model, params, matrix values, credits and
 * attempts (with what each earlier one failed with); ←/→ step through the results the current filters
 * and view show, +/−/0 or a click zoom, Esc closes and puts focus back on the thumbnail. A Ctrl/⌘-click
 * still opens the file itself. The open job is kept in the URL hash (`open=ID&file=N`).
 */

const ZOOMS = [1, 2, 4];

/** One stop of the lightbox: a job's result (`file` its index; -1 for a job without results). */
export interface LightboxItem {
  index: number;
  file: number;
}

interface Lightbox {
  parts: {
    dialog: HTMLDialogElement;
    stage: HTMLDivElement;
    prev: HTMLButtonElement;
    next: HTMLButtonElement;
    position: HTMLSpanElement;
    zoom: HTMLButtonElement;
    close: HTMLButtonElement;
    details: HTMLDivElement;
  };
  items: LightboxItem[];
  position: number;
  zoom: number;
}

/** The lightbox, once first opened. */
export let lightbox: Lightbox | null = null;

/** The result the open lightbox shows (undefined: it is closed). */
export function lightboxItem(): LightboxItem | undefined {
  return lightbox && lightbox.parts.dialog.open ? lightbox.items[lightbox.position] : undefined;
}

// The results the current view shows, in its order: a job with two results is two stops.
function shownItems(): LightboxItem[] {
  const items: LightboxItem[] = [];
  viewOrder().forEach((index) => {
    const count = entries[index]!.files.length;
    if (count === 0) items.push({ index, file: -1 });
    for (let file = 0; file < count; file++) items.push({ index, file });
  });
  return items;
}

function buildLightbox(): Lightbox {
  const dialog = el('dialog', 'lightbox');
  dialog.id = 'lightbox';
  dialog.setAttribute('aria-labelledby', 'lb-title');
  const stage = el('div', 'lb-stage');
  const side = el('div', 'lb-side');
  const bar = el('div', 'lb-bar');
  const button = (text: string, label: string, action: () => void): HTMLButtonElement => {
    const node = el('button', '', text);
    node.type = 'button';
    node.setAttribute('aria-label', label);
    node.title = label;
    node.addEventListener('click', action);
    bar.appendChild(node);
    return node;
  };
  const parts: Lightbox['parts'] = {
    dialog,
    stage,
    prev: button('←', 'Previous result (←)', () => step(-1)),
    next: button('→', 'Next result (→)', () => step(1)),
    position: bar.appendChild(el('span', 'lb-position')),
    zoom: button('Zoom', 'Zoom (+, −, 0 to fit)', () =>
      zoomTo(open().zoom === ZOOMS.length - 1 ? 0 : open().zoom + 1),
    ),
    close: button('✕', 'Close (Esc)', () => dialog.close()),
    details: el('div', 'lb-details'),
  };
  side.appendChild(bar);
  side.appendChild(parts.details);
  dialog.appendChild(stage);
  dialog.appendChild(side);
  // On the document: a button disabled at either end drops the focus out of the dialog.
  document.addEventListener('keydown', (event) => {
    if (!dialog.open) return;
    const tag = tagOf(event.target);
    if (tag === 'VIDEO' || tag === 'TEXTAREA' || event.altKey || event.ctrlKey || event.metaKey) return;
    let handled = true;
    if (event.key === 'ArrowLeft') step(-1);
    else if (event.key === 'ArrowRight') step(1);
    else if (event.key === '+' || event.key === '=') zoomTo(Math.min(ZOOMS.length - 1, open().zoom + 1));
    else if (event.key === '-') zoomTo(Math.max(0, open().zoom - 1));
    else if (event.key === '0') zoomTo(0);
    else handled = false;
    if (handled) event.preventDefault();
  });
  dialog.addEventListener('close', onClose);
  stage.addEventListener('click', (event) => {
    if (tagOf(event.target) === 'IMG') zoomTo(open().zoom === 0 ? 1 : 0);
  });
  document.body.appendChild(dialog);
  return { parts, items: [], position: 0, zoom: 0 };
}

/** The lightbox, made by the time anything in it can act. */
function open(): Lightbox {
  return lightbox!;
}

/** Shows a job's result (-1: the job; a job without results shows why) among those the view shows. */
export function openLightbox(index: number, file: number): void {
  if (!lightbox) lightbox = buildLightbox();
  lightbox.items = shownItems();
  let position = -1;
  lightbox.items.forEach((item, at) => {
    if (position < 0 && item.index === index && (item.file === file || file < 0)) position = at;
  });
  if (position < 0) {
    lightbox.items = [{ index, file: entries[index]!.files.length === 0 ? -1 : Math.max(0, file) }];
    position = 0;
  }
  if (!lightbox.parts.dialog.open) lightbox.parts.dialog.showModal();
  show(position);
}

function step(delta: number): void {
  const next = open().position + delta;
  if (next >= 0 && next < open().items.length) show(next);
}

function show(position: number): void {
  const box = open();
  const parts = box.parts;
  box.position = position;
  box.zoom = 0;
  parts.zoom.textContent = 'Zoom';
  const item = box.items[position]!;
  const entry = entries[item.index]!;
  const file = item.file >= 0 ? entry.files[item.file] : undefined;
  parts.stage.textContent = '';
  parts.stage.classList.remove('zoomed');
  parts.stage.appendChild(stageContent(entry, file));
  parts.position.textContent = position + 1 + ' of ' + box.items.length;
  parts.prev.disabled = position === 0;
  parts.next.disabled = position === box.items.length - 1;
  parts.zoom.disabled = !file || file.mediaType !== 'image' || isExpired(file);
  parts.details.textContent = '';
  parts.details.appendChild(detailsOf(entry, item.file));
  const extra: Record<string, string> = { open: entry.id };
  if (entry.files.length > 1) extra.file = String(item.file + 1);
  setHashExtra(extra);
  writeHash();
}

function stageContent(entry: PageEntry, file: PageFile | undefined): HTMLElement {
  if (!file) {
    const box = el('div', 'lb-reason');
    box.appendChild(el('strong', '', entry.status));
    box.appendChild(reasonOf(entry));
    return box;
  }
  if (isUnavailable(file)) return stateBox(file);
  const href = safeHref(file.href);
  let media: HTMLVideoElement | HTMLImageElement;
  if (file.mediaType === 'video') {
    const video = el('video');
    video.controls = true;
    video.autoplay = true;
    video.setAttribute('playsinline', '');
    video.src = href;
    media = video;
  } else if (file.mediaType === 'image') {
    const img = el('img');
    img.alt = entry.id + ' result ' + (entry.files.indexOf(file) + 1);
    img.src = href;
    media = img;
  } else {
    const link = el('a', 'lb-file', 'Open the file');
    link.href = href;
    link.target = '_blank';
    link.rel = 'noopener';
    return link;
  }
  media.addEventListener('error', () => {
    const reason = file.remote ? 'could not load the link' : undefined;
    if (media.parentNode) media.parentNode.replaceChild(stateBox(file, reason), media);
  });
  return media;
}

function zoomTo(level: number): void {
  const box = open();
  const img = box.parts.stage.querySelector('img');
  if (!img || !img.naturalWidth) return;
  const stage = box.parts.stage;
  if (level === 0) {
    stage.classList.remove('zoomed');
    img.style.width = '';
  } else {
    // Zoom from the size that fits the stage; the stage scrolls to pan, kept on the middle of the view.
    const fitted =
      Math.min(stage.clientWidth / img.naturalWidth, stage.clientHeight / img.naturalHeight) *
      img.naturalWidth;
    const centerX = (stage.scrollLeft + stage.clientWidth / 2) / Math.max(1, stage.scrollWidth);
    const centerY = (stage.scrollTop + stage.clientHeight / 2) / Math.max(1, stage.scrollHeight);
    stage.classList.add('zoomed');
    img.style.width = String(Math.round(fitted * ZOOMS[level]!)) + 'px';
    stage.scrollLeft = centerX * stage.scrollWidth - stage.clientWidth / 2;
    stage.scrollTop = centerY * stage.scrollHeight - stage.clientHeight / 2;
  }
  box.zoom = level;
  box.parts.zoom.textContent = level === 0 ? 'Zoom' : String(ZOOMS[level]) + '×';
}

function fact(list: HTMLElement, name: string, value: string | HTMLElement | undefined): void {
  if (value === undefined || value === null || value === '') return;
  list.appendChild(el('dt', '', name));
  list.appendChild(typeof value === 'object' ? value : el('dd', '', value));
}

function detailsOf(entry: PageEntry, fileIndex: number): DocumentFragment {
  const box = document.createDocumentFragment();
  const title = el('h2', 'id', entry.id + ' ');
  title.id = 'lb-title';
  title.appendChild(el('span', 'badge ' + entry.status, entry.status));
  box.appendChild(title);
  if (entry.files.length > 1)
    box.appendChild(el('div', 'facts', 'result ' + (fileIndex + 1) + ' of ' + entry.files.length));
  reviewDetails(box, entry, fileIndex);
  // A job without results shows its reason on the stage already.
  if (entry.status !== 'done' && fileIndex >= 0) box.appendChild(reasonOf(entry));
  if (entry.prompt !== undefined) {
    const prompt = entry.prompt;
    box.appendChild(el('div', 'prompt', prompt));
    const copy = el('button', 'copy', 'Copy prompt');
    copy.type = 'button';
    copy.addEventListener('click', () => copyText(prompt, copy));
    box.appendChild(copy);
  }
  const list = el('dl', 'lb-facts');
  fact(list, 'model', entry.model + ' (' + entry.kind + ')');
  fact(list, 'credits', String(entry.credits));
  fact(list, 'attempts', String(entry.attempts));
  fact(list, 'service job', entry.serviceJobId);
  fact(list, 'machine', entry.machine);
  const file = fileIndex >= 0 ? entry.files[fileIndex] : undefined;
  if (file) {
    const link = el('dd');
    if (isExpired(file)) link.textContent = 'expired ' + formatTime(file.expiresAt!);
    else {
      const anchor = el('a', '', file.remote ? 'service link' : filePath(file.href));
      anchor.href = safeHref(file.href);
      anchor.target = '_blank';
      anchor.rel = 'noopener';
      link.appendChild(anchor);
      if (file.bytes !== undefined)
        link.appendChild(document.createTextNode(' · ' + Math.max(1, Math.round(file.bytes / 1024)) + ' KB'));
    }
    fact(list, 'file', link);
    if (file.remote && file.expiresAt && !isExpired(file))
      fact(list, 'link until', formatTime(file.expiresAt));
  }
  box.appendChild(list);
  const axes = data.axes.filter((axis) => axis in entry.matrix);
  if (axes.length > 0) {
    box.appendChild(el('h3', '', 'Matrix'));
    const matrix = el('dl', 'lb-facts lb-matrix');
    axes.forEach((axis) => fact(matrix, axis, labelOf(axis, valueKey(entry.matrix[axis]))));
    box.appendChild(matrix);
  }
  const names = Object.keys(entry.params);
  if (names.length > 0) {
    box.appendChild(el('h3', '', 'Params'));
    const params = el('dl', 'lb-facts lb-params');
    names.forEach((name) => fact(params, name, paramText(entry.params[name])));
    box.appendChild(params);
  }
  if (entry.earlierAttempts && entry.earlierAttempts.length > 0) {
    box.appendChild(el('h3', '', 'Earlier attempts'));
    const attempts = el('ol', 'lb-attempts');
    entry.earlierAttempts.forEach((attempt) => {
      const why = [attempt.failureKind, attempt.error].filter(Boolean).join(': ');
      attempts.appendChild(
        el('li', '', 'attempt ' + attempt.attempt + ': ' + attempt.outcome + (why ? ' — ' + why : '')),
      );
    });
    box.appendChild(attempts);
  }
  return box;
}

function onClose(): void {
  const box = open();
  const media = box.parts.stage.querySelector('video');
  if (media) {
    media.pause();
    media.removeAttribute('src');
    media.load();
  }
  box.parts.stage.textContent = '';
  setHashExtra(null);
  writeHash();
  const item = box.items[box.position];
  // Its card may be far from where the page was scrolled: made again if it was let go.
  const cardNode = item && cardOf(item.index);
  if (!item || !cardNode) return;
  const target =
    cardNode.querySelector<HTMLElement>('.open[data-file="' + item.file + '"]') ||
    cardNode.querySelector<HTMLElement>('.open');
  if (target) {
    target.focus({ preventScroll: true });
    target.scrollIntoView({ block: 'nearest' });
  }
}
