import { entryKeys, presentValues } from './axes.js';
import { byId, el } from './dom.js';
import { data, entries, state } from './model.js';
import { safeHref } from './safe-href.js';
import { addGridRow, forgetCards, placeGridSpacers, resetGridWindow } from './window.js';

/**
 * The grid view: the shown jobs by two matrix axes (rows × columns), one grid per value of a third
 * axis when one is chosen, with a link to the PNG the runner made of that layout.
 */

function gridTable(indexes: number[], rowAxis: string, colAxis: string): HTMLTableElement {
  const rows = presentValues(rowAxis, indexes);
  const cols = presentValues(colAxis, indexes);
  const cells = new Map<string, number[]>();
  indexes.forEach((index) => {
    const key = String(entryKeys[index]![rowAxis]) + '\u0000' + String(entryKeys[index]![colAxis]);
    if (!cells.has(key)) cells.set(key, []);
    cells.get(key)!.push(index);
  });
  const table = el('table', 'grid');
  const head = table.createTHead().insertRow();
  head.appendChild(el('th', 'corner', rowAxis + ' \\ ' + colAxis));
  cols.forEach((col) => {
    const th = el('th', '', col.label);
    th.setAttribute('scope', 'col');
    th.setAttribute('data-col', col.key);
    head.appendChild(th);
  });
  const body = table.createTBody();
  // The rows come (label, cells, tiles) when they near the view: window.ts.
  rows.forEach((row) => {
    addGridRow(
      body,
      row,
      cols.map((col) => ({ col: col.key, indexes: cells.get(row.key + '\u0000' + col.key) || [] })),
    );
  });
  placeGridSpacers();
  return table;
}

/** The grid of the shown jobs; returns how many of them it leaves out (no value on an axis it lays out). */
export function buildGrid(shown: number[]): number {
  const grid = byId('grid');
  forgetCards(grid);
  grid.textContent = '';
  resetGridWindow();
  const rowAxis = state.rows;
  const colAxis = state.cols;
  const split = state.split;
  if (data.axes.length < 2) {
    grid.appendChild(
      el('p', 'note', 'The grid needs two matrix axes; this run has ' + data.axes.length + '.'),
    );
    return 0;
  }
  if (rowAxis === colAxis) {
    grid.appendChild(el('p', 'note', 'Choose two different axes for rows and columns.'));
    return 0;
  }
  const inGrid = shown.filter(
    (index) => entryKeys[index]![rowAxis] !== undefined && entryKeys[index]![colAxis] !== undefined,
  );
  grid.style.setProperty('--tile', String(state.size) + 'px');
  const image = gridImageOf(rowAxis, colAxis, split);
  if (image) {
    const link = el(
      'a',
      'grid-image',
      'Grid image (PNG' + (image.transposed ? ', rows and columns swapped' : '') + ', every result)',
    );
    link.href = safeHref(image.href);
    link.setAttribute('download', '');
    grid.appendChild(link);
  }
  // A third axis: one grid per value, each under its label (as a stack of cards per cell hid it).
  if (split !== '' && split !== rowAxis && split !== colAxis) {
    const groups = new Map<string | undefined, number[]>();
    inGrid.forEach((index) => {
      const key = entryKeys[index]![split];
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key)!.push(index);
    });
    presentValues(split, inGrid).forEach((item) =>
      appendSection(grid, split + ' = ' + item.label, item.key, groups.get(item.key)!),
    );
    if (groups.has(undefined)) appendSection(grid, split + ': no value', '', groups.get(undefined)!);
  } else {
    grid.appendChild(gridTable(inGrid, rowAxis, colAxis));
  }
  return shown.length - inGrid.length;
}

/**
 * The jobs the grid leaves out (no value for an axis it lays out), said above it (#33.4): named, up
 * to a few, and the header counts them.
 */
export function outsideNote(shown: number[], outside: number): void {
  const ids = shown
    .filter(
      (index) => entryKeys[index]![state.rows] === undefined || entryKeys[index]![state.cols] === undefined,
    )
    .map((index) => entries[index]!.id);
  const named = ids.slice(0, 10).join(', ') + (ids.length > 10 ? ' and ' + (ids.length - 10) + ' more' : '');
  const note = el(
    'p',
    'note outside',
    outside +
      ' of the ' +
      shown.length +
      ' shown ' +
      (outside === 1 ? 'job is' : 'jobs are') +
      ' not in the grid: no value for ' +
      state.rows +
      ' or ' +
      state.cols +
      ' (' +
      named +
      '; the gallery shows ' +
      (outside === 1 ? 'it' : 'them') +
      ').',
  );
  const grid = byId('grid');
  grid.insertBefore(note, grid.firstChild);
}

function appendSection(grid: HTMLElement, title: string, key: string, indexes: number[]): void {
  const section = el('section', 'grid-part');
  section.setAttribute('data-split', key);
  section.appendChild(el('h2', 'grid-title', title));
  section.appendChild(gridTable(indexes, state.rows, state.cols));
  grid.appendChild(section);
}

/**
 * The PNG the runner made of this layout (rows, columns, third axis), if any; the same with rows and
 * columns swapped is offered too.
 */
function gridImageOf(
  rows: string,
  cols: string,
  split: string,
): { href: string; transposed: boolean } | null {
  let found: { href: string; transposed: boolean } | null = null;
  (data.gridImages || []).forEach((image) => {
    if (found || (image.split || '') !== split) return;
    if (image.rows === rows && image.cols === cols) found = { href: image.href, transposed: false };
    else if (image.rows === cols && image.cols === rows) found = { href: image.href, transposed: true };
  });
  return found;
}
