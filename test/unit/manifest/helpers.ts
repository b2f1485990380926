import { loadManifest } from '../../../src/manifest/load-manifest.js';
import type { LoadedManifest } from '../../../src/manifest/types.js';

/** Loads an inline manifest; throws (failing the test) when it does not pass stage one's schema. */
export async function loadInline(source: string, file = 'inline.yaml'): Promise<LoadedManifest> {
  const { loaded, issues } = await loadManifest(file, { source });
  if (!loaded) throw new Error(`fixture does not load: ${JSON.stringify(issues)}`);
  return loaded;
}

export const context = { env: {} as Record<string, string | undefined>, date: '2026-11-21' };
