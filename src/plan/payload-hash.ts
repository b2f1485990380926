// Payload hashing lives in catalog/ (issue 21: catalog/ must not import plan/); re-exported here so
// plan/ and execute/ importers stay as they are.
export * from '../catalog/payload-hash.js';
