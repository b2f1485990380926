/**
 * The environment variable that holds the service's API key (spec 5): read by the one reader of the
 * key (`service/api-key.ts`) and refused by name in templates (`manifest/secret-guard.ts`).
 */
export const API_KEY_ENV = 'MEDIAGEN_API_KEY';
