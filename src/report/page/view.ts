import { attentionFirst } from './attention.js';
import { axisValues, entryKeys, labelOf } from './axes.js';
import { byId } from './dom.js';
import { missedFilter } from './filters.js';
import { buildGrid, outsideNote } from './grid.js';
import { TILE_SIZES, data, entries, state } from './model.js';
import { readReviewHash, updateTally } from './review-tally.js';
import { buildGalleryWindow, galleryWindow, sameList, updateWindow } from './window.js';

/**
 * The view the controls chose, shown: the filters' counts, the gallery or the grid of the jobs they
 * let through, and the URL hash that keeps the choice (a reload or a shared link keeps it).
 */

/** Per filter: per option, how many jobs it would show (statuses by name, axes by value key). */
interface Counts {
  status: Partial<Record<string, number>>;
  axes: Record<string, Map<string, number>>;
}

// Counts per filter option follow the other filters: an option's count is how many jobs it would show.
function updateCounts(counts: Counts, total: Record<string, number>): void {
  const statusSelect = byId<HTMLSelectElement>('filter-status');
  Array.from(statusSelect.options).forEach((node) => {
    if (node.value === '') node.textContent = 'all (' + total.status + ')';
    else node.textContent = node.value + ' (' + (counts.status[node.value] || 0) + ')';
  });
  data.axes.forEach((axis) => {
    const select = document.querySelector<HTMLSelectElement>('select[data-axis="' + CSS.escape(axis) + '"]')!;
    Array.from(select.options).forEach((node, position) => {
      if (position === 0) node.textContent = 'all (' + total[axis] + ')';
      else
        node.textContent = labelOf(axis, node.value) + ' (' + (counts.axes[axis]!.get(node.value) || 0) + ')';
    });
  });
}

/** Shows the view the state asks for: what every control change ends with. */
export function refresh(): void {
  const counts: Counts = { status: {}, axes: {} };
  const total: Record<string, number> = { status: 0 };
  data.axes.forEach((axis) => {
    counts.axes[axis] = new Map();
    total[axis] = 0;
  });
  const shown: number[] = [];
  for (let index = 0; index < entries.length; index++) {
    const missed = missedFilter(index);
    if (missed === false) continue;
    if (missed === true) shown.push(index);
    const keys = entryKeys[index]!;
    const status = entries[index]!.status;
    if (missed === true || missed === 'status') {
      counts.status[status] = (counts.status[status] || 0) + 1;
      total.status!++;
    }
    for (const axis of data.axes) {
      if (missed !== true && missed !== axis) continue;
      total[axis]!++;
      const key = keys[axis];
      if (key !== undefined) counts.axes[axis]!.set(key, (counts.axes[axis]!.get(key) || 0) + 1);
    }
  }
  updateCounts(counts, total);
  let shownText = shown.length + ' of ' + entries.length + ' shown';
  byId('empty').hidden = shown.length > 0;
  const grid = state.view === 'grid';
  byId('gallery').hidden = grid;
  byId('grid').hidden = !grid || shown.length === 0;
  byId('grid-axes').hidden = !grid;
  // A gallery kept while the grid shows (its cards follow the review); made again when its jobs change.
  const ordered = attentionFirst(shown);
  if (!galleryWindow.built || !sameList(ordered, galleryWindow.shown)) buildGalleryWindow(ordered);
  if (grid) {
    const outside = buildGrid(shown);
    if (outside > 0) {
      shownText =
        shown.length - outside + ' of ' + entries.length + ' in the grid · ' + outside + ' not in it';
      outsideNote(shown, outside);
    }
  }
  byId('shown').textContent = shownText;
  updateWindow();
  updateTally();
  writeHash();
}

/**
 * The hash: view=grid&status=failed&rows=style&cols=product&f.product=latte (and open=ID&file=N
 * while the lightbox shows a job). Values that name nothing on this page are ignored.
 */
export function readHash(): URLSearchParams {
  const params = new URLSearchParams(location.hash.replace(/^#/, ''));
  state.view = params.get('view') === 'grid' ? 'grid' : 'gallery';
  const status = params.get('status') || '';
  const listed = Array.from(byId<HTMLSelectElement>('filter-status').options).some(
    (node) => node.value === status,
  );
  state.status = listed ? status : '';
  data.axes.forEach((axis) => {
    const value = params.get('f.' + axis) || '';
    state.axes[axis] = axisValues[axis]!.byKey.has(value) ? value : '';
  });
  const rows = params.get('rows');
  const cols = params.get('cols');
  state.rows = rows !== null && data.axes.indexOf(rows) >= 0 ? rows : data.axes[0] || '';
  state.cols = cols !== null && data.axes.indexOf(cols) >= 0 ? cols : data.axes[1] || '';
  const split = params.get('split');
  state.split = split !== null && (split === '' || data.axes.indexOf(split) >= 0) ? split : defaultSplit();
  const size = Number(params.get('size'));
  state.size = size >= TILE_SIZES.min && size <= TILE_SIZES.max ? Math.round(size) : TILE_SIZES.initial;
  byId<HTMLSelectElement>('grid-split').value = state.split;
  byId<HTMLInputElement>('grid-size').value = String(state.size);
  byId<HTMLSelectElement>('view').value = state.view;
  byId<HTMLSelectElement>('filter-status').value = state.status;
  byId<HTMLSelectElement>('grid-rows').value = state.rows;
  byId<HTMLSelectElement>('grid-cols').value = state.cols;
  readReviewHash(params);
  data.axes.forEach((axis) => {
    document.querySelector<HTMLSelectElement>('select[data-axis="' + CSS.escape(axis) + '"]')!.value =
      state.axes[axis]!;
  });
  return params;
}

/** A third axis splits the grid by default, as an X/Y/Z plot does. */
export function defaultSplit(): string {
  return data.axes[2] || '';
}

/** What the lightbox adds to the hash while it shows a job (open=ID&file=N); null: nothing. */
let hashExtra: Record<string, string> | null = null;
export function setHashExtra(extra: Record<string, string> | null): void {
  hashExtra = extra;
}

export function writeHash(): void {
  const params = new URLSearchParams();
  if (state.view !== 'gallery') params.set('view', state.view);
  if (state.status !== '') params.set('status', state.status);
  if (state.review) params.set('review', state.review);
  data.axes.forEach((axis) => {
    if (state.axes[axis] !== '') params.set('f.' + axis, state.axes[axis]!);
  });
  if (state.view === 'grid') {
    params.set('rows', state.rows);
    params.set('cols', state.cols);
    if (state.split !== defaultSplit()) params.set('split', state.split);
    if (state.size !== TILE_SIZES.initial) params.set('size', String(state.size));
  }
  const extra = hashExtra;
  if (extra) Object.keys(extra).forEach((name) => params.set(name, extra[name]!));
  const hash = params.toString();
  if (location.hash.replace(/^#/, '') === hash) return;
  history.replaceState(null, '', hash === '' ? location.pathname + location.search : '#' + hash);
}

export function clearFilters(): void {
  state.status = '';
  data.axes.forEach((axis) => {
    state.axes[axis] = '';
  });
  byId<HTMLSelectElement>('filter-status').value = '';
  document.querySelectorAll<HTMLSelectElement>('select[data-axis]').forEach((select) => {
    select.value = '';
  });
  refresh();
}
