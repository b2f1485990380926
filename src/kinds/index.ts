import { imageKind } from './image.js';
import type { JobKind, JobKindAdapter } from './types.js';
import {
  articleVideoKind,
  renderVideoKind,
  slideshowVideoKind,
  stockVideoKind,
  voiceoverVideoKind,
} from './video.js';

export type { JobKind, JobKindAdapter } from './types.js';
export { JOB_KINDS } from './types.js';

const adapters: Record<JobKind, JobKindAdapter> = {
  image: imageKind,
  'render-video': renderVideoKind,
  'voiceover-video': voiceoverVideoKind,
  'stock-video': stockVideoKind,
  'slideshow-video': slideshowVideoKind,
  'article-video': articleVideoKind,
};

export function getJobKind(kind: JobKind): JobKindAdapter {
  return adapters[kind];
}

export function allJobKinds(): JobKindAdapter[] {
  return Object.values(adapters);
}

/** The job kind whose endpoint runs models of this catalog category; undefined when none does. */
export function kindForModel(model: { readonly category: string }): JobKind | undefined {
  return allJobKinds().find((adapter) => (adapter.categories as readonly string[]).includes(model.category))
    ?.kind;
}

/** Whether some job kind of the runner can run the model: only those are offered as suggestions. */
export function isRunnableModel(model: { readonly category: string }): boolean {
  return kindForModel(model) !== undefined;
}
