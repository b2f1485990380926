import type { FieldDefinition, FieldOption, Model, ModelConfig } from '../service/types.js';

/**
 * The simulated model catalog (spec 2.2–2.4). One model or more per category of spec 2.3; together the
 * configs use every field type and every field property, so a client's form and validation logic is
 * exercised end to end. Deterministic: the same slug option gives the same catalog.
 */

const PREVIEW = 'https://cdn.example.invalid/previews';

function opts(...values: string[]): FieldOption[] {
  return values.map((value) => ({ value, label: value }));
}

const VOICE: FieldDefinition = {
  type: 'card-select',
  label: 'Voice',
  labelVi: 'Giọng đọc',
  default: 'mai',
  options: [
    { value: 'mai', label: 'Mai (female, northern)', imageUrl: `${PREVIEW}/voice-mai.png` },
    { value: 'nam', label: 'Nam (male, southern)', imageUrl: `${PREVIEW}/voice-nam.png` },
    { value: 'linh', label: 'Linh (female, central)', imageUrl: `${PREVIEW}/voice-linh.png` },
  ],
};

const VIDEO_ASPECT: FieldDefinition = {
  type: 'select',
  label: 'Aspect ratio',
  labelVi: 'Tỉ lệ khung hình',
  default: '16:9',
  options: opts('16:9', '9:16', '1:1'),
};

const CAPTIONS: FieldDefinition = {
  type: 'toggle',
  label: 'Burn-in captions',
  labelVi: 'Phụ đề',
  default: true,
  optional: true,
  advanced: true,
};

function imageModel(slug: string): Model {
  return {
    slug,
    displayName: 'ChatGPT Image (subscription)',
    category: 'image',
    creditCost: 4,
    description: 'Subscription image generation; covered by the plan quota, else paid in credits.',
    imageUrl: `${PREVIEW}/chatgpt-image.png`,
    config: {
      _badges: ['subscription', 'new'],
      maxRefImages: 20,
      aspectRatio: {
        type: 'select',
        label: 'Aspect ratio',
        labelVi: 'Tỉ lệ khung hình',
        optional: true,
        options: opts('1:1', '16:9', '9:16', '4:3', '3:4'),
      },
      format: {
        type: 'select',
        label: 'Format',
        labelVi: 'Định dạng',
        default: 'png',
        options: opts('png', 'jpeg'),
      },
      resolution: {
        type: 'select',
        label: 'Resolution',
        labelVi: 'Độ phân giải',
        default: '1K',
        options: opts('1K', '2K'),
      },
      requireTransparent: {
        type: 'toggle',
        label: 'Transparent background',
        labelVi: 'Nền trong suốt',
        optional: true,
      },
      dpi: {
        type: 'number',
        label: 'DPI',
        labelVi: 'DPI',
        min: 1,
        max: 1200,
        optional: true,
        advanced: true,
      },
      referenceImages: {
        type: 'upload',
        label: 'Reference images',
        labelVi: 'Ảnh tham chiếu',
        optional: true,
      },
    },
  };
}

function model(slug: string, category: Model['category'], creditCost: number, config: ModelConfig): Model {
  return {
    slug,
    displayName: slug
      .split('-')
      .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
      .join(' '),
    category,
    creditCost,
    description: null,
    imageUrl: null,
    config,
  };
}

function videoModels(): Model[] {
  return [
    model('veo-lite', 'video', 20, {
      _badges: ['beta'],
      aspectRatio: VIDEO_ASPECT,
      duration: {
        type: 'number',
        label: 'Duration (s)',
        labelVi: 'Thời lượng (giây)',
        min: 4,
        max: 8,
        default: 8,
      },
    }),
    model('voiceover-standard', 'voiceovervideo', 10, {
      script: { type: 'text', label: 'Script', labelVi: 'Kịch bản' },
      voice: VOICE,
      sceneCount: {
        type: 'number',
        label: 'Scenes',
        labelVi: 'Số cảnh',
        min: 1,
        max: 20,
        default: 5,
        creditCostMultiplier: true,
      },
      style: {
        type: 'select',
        label: 'Image style',
        labelVi: 'Phong cách',
        default: 'cinematic',
        options: opts('cinematic', 'anime', 'watercolor'),
      },
      aspectRatio: VIDEO_ASPECT,
      captions: CAPTIONS,
    }),
    model('stock-narrated', 'stockvideo', 8, {
      script: { type: 'text', label: 'Script', labelVi: 'Kịch bản' },
      voice: VOICE,
      duration: {
        type: 'number',
        label: 'Duration (minutes)',
        labelVi: 'Thời lượng (phút)',
        min: 1,
        max: 10,
        default: 1,
        creditCostMultiplier: true,
      },
      aspectRatio: VIDEO_ASPECT,
      captions: CAPTIONS,
    }),
    model('slideshow-classic', 'slideshowvideo', 6, {
      images: { type: 'upload', label: 'Photos', labelVi: 'Ảnh' },
      story: { type: 'text', label: 'Story', labelVi: 'Câu chuyện', optional: true },
      voice: VOICE,
      music: {
        type: 'select',
        label: 'Music',
        labelVi: 'Nhạc nền',
        default: 'calm',
        options: opts('calm', 'upbeat', 'none'),
      },
      photoSeconds: {
        type: 'number',
        label: 'Seconds per photo',
        labelVi: 'Giây mỗi ảnh',
        min: 2,
        max: 10,
        default: 4,
        advanced: true,
      },
    }),
    model('article-to-video', 'articlevideo', 15, {
      articleUrl: { type: 'text', label: 'Article URL', labelVi: 'Link bài viết' },
      voice: VOICE,
      duration: {
        type: 'number',
        label: 'Target length (s)',
        labelVi: 'Độ dài (giây)',
        min: 30,
        max: 180,
        default: 60,
      },
      aspectRatio: VIDEO_ASPECT,
    }),
    model('render-compose', 'render', 5, {
      media: { type: 'upload', label: 'Images or clips', labelVi: 'Ảnh hoặc video' },
      audio: { type: 'upload', label: 'Audio track', labelVi: 'Âm thanh', optional: true },
      layout: {
        type: 'select',
        label: 'Layout',
        labelVi: 'Bố cục',
        default: 'full',
        options: opts('full', 'split', 'grid'),
      },
      transition: {
        type: 'select',
        label: 'Transition',
        labelVi: 'Chuyển cảnh',
        default: 'fade',
        options: opts('fade', 'slide', 'cut'),
        advanced: true,
      },
      captions: CAPTIONS,
    }),
    model('creative-pro', 'creativevideo', 30, {
      tier: {
        type: 'card-select',
        label: 'Tier',
        labelVi: 'Gói',
        default: 'Pro',
        options: [
          { value: 'Fast', label: 'Fast', imageUrl: `${PREVIEW}/tier-fast.png` },
          { value: 'Pro', label: 'Pro', imageUrl: `${PREVIEW}/tier-pro.png` },
          { value: 'Ultra', label: 'Ultra', imageUrl: null },
        ],
      },
      aspectRatio: VIDEO_ASPECT,
    }),
    model('highlight-clips', 'highlightvideo', 12, {
      sourceUrl: { type: 'text', label: 'Source video URL', labelVi: 'Link video gốc' },
      clipCount: {
        type: 'number',
        label: 'Clips',
        labelVi: 'Số clip',
        min: 1,
        max: 5,
        default: 1,
        creditCostMultiplier: true,
      },
    }),
    model('inpaint-edit', 'inpaint', 3, {
      maxRefImages: 1,
      image: { type: 'upload', label: 'Image', labelVi: 'Ảnh' },
      mask: { type: 'upload', label: 'Mask', labelVi: 'Mặt nạ', optional: true, advanced: true },
    }),
    model('web-scrape', 'scrape', 1, {
      url: { type: 'text', label: 'Page URL', labelVi: 'Link trang' },
      depth: {
        type: 'number',
        label: 'Depth',
        labelVi: 'Độ sâu',
        min: 0,
        max: 3,
        default: 0,
        advanced: true,
        optional: true,
      },
    }),
  ];
}

/**
 * A second model of category `image` (issue #33.16), with its own params and price: listed by
 * `GET /models`, refused by the image job endpoint, which takes the subscription model only (spec 4.3).
 */
function secondImageModel(slug: string): Model {
  return {
    ...model(slug, 'image', 6, {
      style: {
        type: 'select',
        label: 'Style',
        labelVi: 'Phong cách',
        default: 'photo',
        options: opts('photo', 'illustration', 'pixel'),
      },
      steps: {
        type: 'number',
        label: 'Steps',
        labelVi: 'Số bước',
        min: 10,
        max: 50,
        default: 30,
        advanced: true,
      },
    }),
    description: 'Another image model of the catalog; not created by the subscription image job endpoint.',
  };
}

/** The whole catalog, image model first (then the second image model, when asked for). */
export function buildCatalog(imageModelSlug: string, secondImageSlug?: string): Model[] {
  return [
    imageModel(imageModelSlug),
    ...(secondImageSlug === undefined ? [] : [secondImageModel(secondImageSlug)]),
    ...videoModels(),
  ];
}

/** The config's field definitions, without the special keys `_badges` and `maxRefImages`. */
export function listFields(model: Model): [string, FieldDefinition][] {
  const config = model.config ?? {};
  return Object.entries(config)
    .filter(([key]) => key !== '_badges' && key !== 'maxRefImages')
    .map(([key, value]) => [key, value as FieldDefinition]);
}

/**
 * `creditCost` times the value of every `creditCostMultiplier` field (the default when the body omits
 * it), rounded up to whole credits.
 */
export function computeCreditCost(model: Model, params: Record<string, unknown>): number {
  // The simulator's own catalog always holds numbers (a rewritten price is only what /models shows).
  let cost = Number(model.creditCost);
  for (const [key, field] of listFields(model)) {
    if (field.creditCostMultiplier !== true) continue;
    const value = params[key] ?? field.default;
    if (typeof value === 'number' && Number.isFinite(value)) cost *= value;
  }
  return Math.ceil(cost);
}
