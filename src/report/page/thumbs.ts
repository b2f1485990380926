import type { PageEntry, PageFile } from '../page-data.js';
import { el, filePath, formatTime } from './dom.js';
import { NOW, entries } from './model.js';
import { safeHref } from './safe-href.js';

/**
 * A job's results as its card shows them: media load lazily (images with `loading="lazy"`, videos get
 * their source when they scroll into view) and a thumbnail shows on a canvas drawn from its unpainted
 * image, so 5,000 results stay responsive and light; a result that cannot be shown says why.
 */

/** While printing (print.ts) images load eagerly and no card is let go (window.ts). */
export let printing = false;
export function setPrinting(on: boolean): void {
  printing = on;
}

export const videoObserver =
  'IntersectionObserver' in window
    ? new IntersectionObserver(
        (seen) => {
          seen.forEach((item) => {
            if (!item.isIntersecting) return;
            const video = item.target as HTMLVideoElement;
            videoObserver!.unobserve(video);
            video.preload = 'metadata';
            // '#t=0.1' makes the first frame the poster.
            video.src = (video.getAttribute('data-src') as string) + '#t=0.1';
          });
        },
        { rootMargin: '400px' },
      )
    : null;

export function isExpired(file: PageFile): boolean {
  return file.remote && file.expiresAt !== undefined && Date.parse(file.expiresAt) <= NOW;
}
/** Recorded as saved, but not in this machine's output and not fetched again (#30.2). */
export function isUnavailable(file: PageFile): boolean {
  return file.missing !== undefined || isExpired(file);
}

/** What stands in for a result that cannot be shown: why, and until when its link works. */
export function stateBox(file: PageFile, reason?: string): HTMLDivElement {
  const box = el('div', 'state-box');
  if (file.missing !== undefined) {
    box.classList.add('missing');
    box.appendChild(el('strong', '', 'Missing here'));
    box.appendChild(el('span', '', file.missing));
  } else if (isExpired(file)) {
    box.classList.add('expired');
    box.appendChild(el('strong', '', 'Expired'));
    box.appendChild(
      el('span', '', 'not downloaded; the service deleted it ' + formatTime(file.expiresAt as string)),
    );
  } else if (file.remote) {
    box.classList.add('remote');
    box.appendChild(el('strong', '', 'Not downloaded'));
    box.appendChild(
      el(
        'span',
        '',
        reason || (file.expiresAt ? 'link works until ' + formatTime(file.expiresAt) : 'link expiry unknown'),
      ),
    );
  } else {
    box.classList.add('missing');
    box.appendChild(el('strong', '', 'File not found'));
    box.appendChild(el('span', '', reason || filePath(file.href)));
  }
  return box;
}

// The small thumbnail when the runner made one (the file itself is for the lightbox), loaded lazily
// (eagerly while printing: print.ts).
function lazyImage(file: PageFile, href: string, name: string): HTMLImageElement {
  const img = el('img', 'source');
  img.loading = printing ? 'eager' : 'lazy';
  img.decoding = 'async';
  img.alt = name;
  if (file.thumb) img.setAttribute('data-full', href);
  img.src = file.thumb ? safeHref(file.thumb) : href;
  return img;
}

// What shows the thumbnail: a canvas drawn from the (unpainted) image once it loads, at the size it
// shows. Chromium keeps the decoded pixels of the last 1,000 images it painted (~190 MB for 256 px
// thumbnails, whatever has left the page), but not a canvas' pixels, which go with its card.
function thumbCanvas(name: string): HTMLCanvasElement {
  const canvas = el('canvas');
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', name);
  canvas.width = 0;
  canvas.height = 0;
  return canvas;
}

/** The canvases being drawn (print waits for them). */
export const thumbDraws = new Set<Promise<void>>();

export function drawThumb(img: HTMLImageElement): void {
  const canvas = img.nextElementSibling as HTMLCanvasElement | null;
  if (!canvas || canvas.tagName !== 'CANVAS' || !img.naturalWidth) return;
  const context = canvas.getContext('bitmaprenderer');
  if (!context) {
    img.classList.remove('source');
    canvas.remove();
    return;
  }
  const box = img.parentNode as HTMLElement;
  canvas.removeAttribute('data-drawn');
  const ratio = window.devicePixelRatio || 1;
  const scale =
    box.clientWidth > 0 && box.clientHeight > 0
      ? Math.min(box.clientWidth / img.naturalWidth, box.clientHeight / img.naturalHeight) * ratio
      : 1;
  const width = Math.max(1, Math.round(img.naturalWidth * scale));
  const height = Math.max(1, Math.round(img.naturalHeight * scale));
  // An ImageBitmap is decoded pixels of its own: drawing the image itself would decode it through
  // the canvases' cache of decoded images, as painting it does.
  const drawn = createImageBitmap(img, { resizeWidth: width, resizeHeight: height, resizeQuality: 'high' })
    .then(
      (bitmap) => {
        if (!canvas.isConnected) {
          bitmap.close();
          return;
        }
        // The canvas' own size is the bitmap's: left 0 × 0, object-fit had no ratio to keep and every
        // result was stretched to its box (#33.1).
        canvas.width = bitmap.width;
        canvas.height = bitmap.height;
        context.transferFromImageBitmap(bitmap);
        canvas.setAttribute('data-drawn', '');
      },
      () => {
        img.classList.remove('source');
        canvas.remove();
      },
    )
    .then(() => {
      thumbDraws.delete(drawn);
    });
  thumbDraws.add(drawn);
}

/** The tiles' size changed: their canvases are drawn again at it. */
export function redrawThumbs(root: HTMLElement): void {
  root.querySelectorAll<HTMLImageElement>('img.source').forEach((img) => {
    if (img.complete) drawThumb(img);
  });
}

/** A thumbnail whose file does not load (moved, deleted, a dead link) says so instead of a broken image. */
export function replaceBroken(media: Element): void {
  const holder = media.closest('[data-file]');
  const index = holder && holder.closest('[data-index]');
  if (!holder || !index) return;
  const entry = entries[Number(index.getAttribute('data-index'))]!;
  const file = entry.files[Number(holder.getAttribute('data-file'))]!;
  const reason = file.remote
    ? 'could not load the link' + (file.expiresAt ? ' (works until ' + formatTime(file.expiresAt) + ')' : '')
    : undefined;
  holder.textContent = '';
  holder.classList.add('broken');
  holder.appendChild(stateBox(file, reason));
}

/** A card's results: each a link the lightbox opens (a Ctrl+click opens the file itself). */
export function thumb(entry: PageEntry): HTMLDivElement {
  const box = el('div', 'thumb');
  entry.files.forEach((file, index) => {
    const href = safeHref(file.href);
    const link = el('a', 'open');
    link.href = href;
    link.setAttribute('data-file', String(index));
    link.title = 'Open in the lightbox (Ctrl+click: the file)';
    const name = entry.id + ' result ' + (index + 1);
    if (isUnavailable(file)) {
      link.removeAttribute('href');
      link.tabIndex = 0;
      link.setAttribute('role', 'button');
      link.setAttribute('aria-label', name + ': expired');
      link.appendChild(stateBox(file));
    } else if (file.mediaType === 'video') {
      const video = el('video');
      video.preload = 'none';
      video.muted = true;
      video.setAttribute('playsinline', '');
      video.setAttribute('data-src', href);
      video.setAttribute('aria-label', name);
      if (videoObserver) videoObserver.observe(video);
      else video.src = href;
      link.appendChild(video);
      link.appendChild(el('span', 'play', '▶'));
    } else if (file.mediaType === 'image') {
      link.appendChild(lazyImage(file, href, name));
      link.appendChild(thumbCanvas(name));
    } else {
      link.appendChild(el('span', 'state-box', 'file ' + (index + 1)));
    }
    if (file.remote && !isExpired(file)) {
      link.appendChild(
        el(
          'span',
          'corner',
          file.expiresAt ? 'not downloaded · link until ' + formatTime(file.expiresAt) : 'not downloaded',
        ),
      );
    }
    box.appendChild(link);
  });
  return box;
}
