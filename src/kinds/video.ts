import type { ModelCategory } from '../service/types.js';
import { buildFlatBody } from './body.js';
import type { JobKind, JobKindAdapter } from './types.js';

/**
 * Spec 4.5: the five video creation endpoints. Their payloads are "not shown", so the job's fields
 * are passed through as they are, and none is assumed to honour an idempotency key.
 */
function videoKind(kind: JobKind, category: ModelCategory, createPath: string): JobKindAdapter {
  return {
    kind,
    categories: [category],
    createPath,
    idempotent: false,
    firstPollAfterMs: 20_000,
    typicalDurationMs: 180_000,
    buildBody: buildFlatBody,
  };
}

export const renderVideoKind = videoKind('render-video', 'render', '/render/video');
export const voiceoverVideoKind = videoKind('voiceover-video', 'voiceovervideo', '/voiceover-videos/create');
export const stockVideoKind = videoKind('stock-video', 'stockvideo', '/stock-videos/create');
export const slideshowVideoKind = videoKind('slideshow-video', 'slideshowvideo', '/slideshow-videos/create');
export const articleVideoKind = videoKind('article-video', 'articlevideo', '/article-videos/create');
