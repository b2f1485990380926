import type { FieldDefinition, Model } from '../service/types.js';
import { listFields } from './catalog.js';

/**
 * Request-body checks for the creation endpoints. Fields the model's config does not name are ignored
 * silently, as the real service does (api-notes); named fields are checked against their definition.
 */

const HTTP_LINK = /^https?:\/\/\S+$/i;

function checkField(key: string, field: FieldDefinition, value: unknown, maxLinks: number): string | null {
  switch (field.type) {
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return `${key} must be a number`;
      if (field.min !== undefined && value < field.min) return `${key} must be at least ${field.min}`;
      if (field.max !== undefined && value > field.max) return `${key} must be at most ${field.max}`;
      return null;
    }
    case 'select':
    case 'card-select': {
      const allowed = (field.options ?? []).map((o) => o.value);
      return allowed.includes(value as string) ? null : `${key} must be one of ${allowed.join(', ')}`;
    }
    case 'toggle':
      return typeof value === 'boolean' ? null : `${key} must be true or false`;
    case 'text':
      return typeof value === 'string' ? null : `${key} must be a string`;
    case 'upload': {
      const links = Array.isArray(value) ? (value as unknown[]) : [value];
      if (links.length > maxLinks) return `${key} takes at most ${maxLinks} links`;
      const bad = links.find((l) => typeof l !== 'string' || !HTTP_LINK.test(l));
      return bad === undefined ? null : `${key} must hold links starting with http:// or https://`;
    }
  }
}

/** Every problem with `body` for `model`; empty when the body is acceptable. */
export function validateModelParams(model: Model, body: Record<string, unknown>): string[] {
  const issues: string[] = [];
  const maxLinks = typeof model.config?.maxRefImages === 'number' ? model.config.maxRefImages : 20;
  for (const [key, field] of listFields(model)) {
    const value = body[key];
    if (value === undefined || value === null) {
      if (field.optional !== true && field.default === undefined) issues.push(`${key} is required`);
      continue;
    }
    const issue = checkField(key, field, value, maxLinks);
    if (issue !== null) issues.push(issue);
  }
  return issues;
}

/** Spec 4.3's rules for the subscription image job, on top of the model's config. */
export function validateImageBody(model: Model, body: Record<string, unknown>): string[] {
  const issues: string[] = [];
  if (typeof body.prompt !== 'string' || body.prompt.trim() === '') issues.push('prompt is required');
  if (body.dpi !== undefined && !Number.isInteger(body.dpi))
    issues.push('dpi must be an integer from 1 to 1200');
  if (body.referenceImages !== undefined && !Array.isArray(body.referenceImages)) {
    issues.push('referenceImages must be an array of links');
  }
  return [...issues, ...validateModelParams(model, body)];
}

/** Every link the job would fetch at create time: the values of the model's upload fields. */
export function collectReferenceLinks(model: Model, body: Record<string, unknown>): string[] {
  const links: string[] = [];
  for (const [key, field] of listFields(model)) {
    if (field.type !== 'upload') continue;
    const value = body[key];
    for (const link of Array.isArray(value) ? (value as unknown[]) : [value]) {
      if (typeof link === 'string') links.push(link);
    }
  }
  return links;
}
