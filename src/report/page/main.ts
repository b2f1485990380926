import { attentionSummary } from './attention.js';
import { axisValues, indexAxisValues } from './axes.js';
import { byId, el, formatZonedTime, option } from './dom.js';
import { setupLightbox } from './keyboard.js';
import { data, entries, state, TILE_SIZES } from './model.js';
import { setupMedia } from './print.js';
import { setupReview } from './review.js';
import { drawThumb, redrawThumbs, replaceBroken } from './thumbs.js';
import { clearFilters, readHash, refresh, writeHash } from './view.js';
import { resizeGridRows, setupWindow } from './window.js';

/**
 * The report page's script (bundled by scripts/bundle-report-page.js into src/generated/report-page.ts,
 * which render-html.ts inlines): the gallery, filters and grid of a run, its lightbox, review and
 * printing. No network: it reads the page's JSON data block (model.ts) and builds the DOM with
 * `textContent` and `setAttribute` only. Filters, view and grid axes live in the URL hash.
 */
function setup(): void {
  indexAxisValues();
  const counts: Partial<Record<string, number>> = {};
  let credits = 0;
  entries.forEach((entry) => {
    counts[entry.status] = (counts[entry.status] || 0) + 1;
    credits += entry.credits;
  });
  const statusSelect = byId<HTMLSelectElement>('filter-status');
  const parts: string[] = [];
  data.statuses.forEach((status) => {
    if (!counts[status]) return;
    parts.push(String(counts[status]) + ' ' + status);
    option(statusSelect, status);
  });
  const made = byId('made');
  made.textContent = formatZonedTime(made.getAttribute('datetime') || '') || made.textContent;
  byId('summary').textContent = entries.length + ' jobs: ' + parts.join(', ') + ' · ' + credits + ' credits';
  attentionSummary(counts);
  const axisBox = byId('axis-filters');
  data.axes.forEach((axis) => {
    state.axes[axis] = '';
    const label = el('label', '', axis + ' ');
    const select = el('select');
    select.setAttribute('data-axis', axis);
    option(select, '', 'all');
    axisValues[axis]!.list.forEach((item) => option(select, item.key, item.label));
    select.addEventListener('change', () => {
      state.axes[axis] = select.value;
      refresh();
    });
    label.appendChild(select);
    axisBox.appendChild(label);
  });
  (['grid-rows', 'grid-cols'] as const).forEach((id) => {
    const select = byId<HTMLSelectElement>(id);
    data.axes.forEach((axis) => option(select, axis));
    select.addEventListener('change', () => {
      state[id === 'grid-rows' ? 'rows' : 'cols'] = select.value;
      refresh();
    });
  });
  const splitSelect = byId<HTMLSelectElement>('grid-split');
  option(splitSelect, '', 'none');
  data.axes.forEach((axis) => option(splitSelect, axis));
  splitSelect.addEventListener('change', () => {
    state.split = splitSelect.value;
    refresh();
  });
  const slider = byId<HTMLInputElement>('grid-size');
  slider.min = String(TILE_SIZES.min);
  slider.max = String(TILE_SIZES.max);
  slider.step = String(TILE_SIZES.step);
  slider.addEventListener('change', () => redrawThumbs(byId('grid')));
  // Only the tiles' size changes: no grid is rebuilt while the slider moves.
  slider.addEventListener('input', () => {
    state.size = Number(slider.value);
    byId('grid').style.setProperty('--tile', String(state.size) + 'px');
    resizeGridRows();
    writeHash();
  });
  statusSelect.addEventListener('change', () => {
    state.status = statusSelect.value;
    refresh();
  });
  const view = byId<HTMLSelectElement>('view');
  view.addEventListener('change', () => {
    state.view = view.value === 'grid' ? 'grid' : 'gallery';
    refresh();
  });
  byId('controls').addEventListener('submit', (event) => event.preventDefault());
  byId('clear-filters').addEventListener('click', clearFilters);
  // Media errors and loads do not bubble: one listener catches them all on the way down.
  ['gallery', 'grid'].forEach((id) => {
    byId(id).addEventListener(
      'load',
      (event) => {
        const target = event.target as HTMLImageElement | null;
        if (target && target.tagName === 'IMG' && target.classList.contains('source')) drawThumb(target);
      },
      true,
    );
    byId(id).addEventListener(
      'error',
      (event) => {
        const target = event.target as HTMLImageElement | HTMLVideoElement | null;
        if (target && target.tagName === 'IMG' && target.hasAttribute('data-full')) {
          // A thumbnail deleted since the report was written: the file itself, then the broken state.
          target.src = target.getAttribute('data-full')!;
          target.removeAttribute('data-full');
        } else if (target && (target.tagName === 'IMG' || target.tagName === 'VIDEO')) replaceBroken(target);
      },
      true,
    );
  });
  // The grid's column labels and a focused card stay clear of the sticky header, however it wraps.
  const header = document.querySelector('header')!;
  const measureHeader = (): void => {
    document.documentElement.style.setProperty('--header-height', String(header.offsetHeight) + 'px');
  };
  measureHeader();
  if ('ResizeObserver' in window) new ResizeObserver(measureHeader).observe(header);
  setupReview();
  const params = readHash();
  window.addEventListener('hashchange', () => {
    readHash();
    refresh();
  });
  setupWindow();
  refresh();
  document.body.setAttribute('data-ready', 'true');
  setupLightbox(params);
}

setup();
setupMedia();
