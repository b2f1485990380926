// The source of the saved catalog's model validator: scripts/compile-schemas.js compiles this object at
// build time into src/generated/catalog-model-validator.ts. It imports nothing, so the script can load
// it alone.

/**
 * One model of a saved catalog (the file is a bare `Model[]`, `{ models: Model[] }` or the
 * `{ data: Model[] }` envelope; `parseCatalog` unwraps it).
 */
export const CATALOG_MODEL_SCHEMA = {
  type: 'object',
  required: ['slug', 'displayName', 'category'],
  properties: {
    slug: { type: 'string', minLength: 1 },
    displayName: { type: 'string' },
    category: { type: 'string', minLength: 1 },
    // Checked per job when a manifest uses the model (src/service/credit-cost.ts), naming the model and the value.
    creditCost: {},
    description: { type: ['string', 'null'] },
    imageUrl: { type: ['string', 'null'] },
    config: { type: ['object', 'null'] },
  },
} as const;
