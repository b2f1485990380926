import { describe, expect, it } from 'vitest';
import { findSubscriptionImageModel } from '../../../src/catalog/image-rules.js';
import {
  validateJobsAgainstCatalog,
  type CatalogValidationContext,
} from '../../../src/catalog/validate-job.js';
import type { Model } from '../../../src/service/types.js';
import { locate, makeCatalog, makeJob } from './fixtures.js';

const ctx: CatalogValidationContext = {
  locate,
  manifestDir: '/manifests',
  fileInfo: () => undefined,
  checkImageEndpointModel: true,
};

const issuesOf = (model: string, catalog: Model[] = makeCatalog()) =>
  validateJobsAgainstCatalog([makeJob({ model, params: {} })], catalog, ctx).issues.filter(
    (issue) => issue.code === 'image-model-not-accepted',
  );

describe('the image endpoint takes the subscription image model only (spec 4.3, #33.16)', () => {
  it('refuses a job of another image model, naming it, its catalog entry, the endpoint and the model it takes', () => {
    const [issue, ...more] = issuesOf('flux-multi');
    expect(more).toEqual([]);
    expect(issue).toMatchObject({
      severity: 'error',
      jobId: 'job-1',
      location: { file: 'm.yaml#jobs.0.model' },
      message:
        'model "flux-multi" ("Flux multi reference" in the catalog: category image, 1 credits) cannot be created by kind "image": the image job endpoint (POST /agents/jobs/create, spec 4.3) takes only the subscription image model "chatgpt-image-sangtao", and the service refuses any other model there (HTTP 400); the runner knows no other endpoint that creates image jobs',
      hint: 'use model: chatgpt-image-sangtao (its params and price: runner models --category image)',
    });
    expect(issuesOf('chatgpt-image-sangtao')).toEqual([]);
  });

  it("finds the subscription model: the catalog's only image model, else the one api-notes names, else none", () => {
    const catalog = makeCatalog();
    const only = catalog.filter((model) => model.slug !== 'flux-pro' && model.slug !== 'flux-multi');
    const renamed = only.map((model) =>
      model.category === 'image' ? { ...model, slug: 'studio-image' } : model,
    );
    expect(findSubscriptionImageModel(renamed)?.slug).toBe('studio-image');
    expect(findSubscriptionImageModel(catalog)?.slug).toBe('chatgpt-image-sangtao');
    const unknown = catalog.filter((model) => model.slug !== 'chatgpt-image-sangtao');
    expect(findSubscriptionImageModel(unknown)).toBeUndefined();
    // When the catalog does not tell, no job is refused for it: the service answers for itself.
    expect(issuesOf('flux-pro', unknown)).toEqual([]);
  });

  it('is checked only where asked (validate, plan and apply ask)', () => {
    const job = makeJob({ model: 'flux-multi', params: {} });
    const { issues } = validateJobsAgainstCatalog([job], makeCatalog(), {
      ...ctx,
      checkImageEndpointModel: false,
    });
    expect(issues.filter((issue) => issue.code === 'image-model-not-accepted')).toEqual([]);
  });
});
