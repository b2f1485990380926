import type { PageData } from '../page-data.js';
import { byId } from './dom.js';

/** The run the page shows: its JSON data block, read once when the script starts. */
export const data = JSON.parse(byId('report-data').textContent ?? '') as PageData;
export const entries = data.entries;
/** Read once: "expired" is judged when the page is opened, which may be days after it was written. */
export const NOW = Date.now();

export type ViewName = 'gallery' | 'grid';
/** The review's filter: a job's verdict, or '' for every job. */
export type ReviewFilter = '' | 'rejected' | 'approved' | 'to-review';

/** What the controls chose; kept in the URL hash (view.ts), so a reload or a shared link keeps it. */
export interface ViewState {
  view: ViewName;
  status: string;
  /** Axis → the chosen value's key ('' for all). */
  axes: Record<string, string>;
  rows: string;
  cols: string;
  /** The grid's third axis: one grid per value ('' for none). */
  split: string;
  size: number;
  review: ReviewFilter;
}

export const state: ViewState = {
  view: 'gallery',
  status: '',
  axes: {},
  rows: '',
  cols: '',
  split: '',
  size: 160,
  review: '',
};

export const TILE_SIZES = { min: 64, max: 320, step: 16, initial: 160 };
