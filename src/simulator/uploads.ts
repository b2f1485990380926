import { createHmac } from 'node:crypto';

/**
 * The upload flow of api-notes: presign → PUT bytes to the signed blob link → GET the public link.
 * Blob and file links live outside `/api/v2` and need no API key, like real blob storage.
 */
export interface StoredUpload {
  id: string;
  fileName: string;
  contentType: string;
  bytes?: Buffer;
}

export interface UploadStore {
  presign(fileName: string, contentType: string, origin: string): { sasUrl: string; publicUrl: string };
  /** Stores the bytes; `false` when the id is unknown or the signature wrong. */
  put(id: string, signature: string | null, bytes: Buffer, contentType: string | undefined): boolean;
  /** The uploaded file, once its bytes have been PUT. */
  get(id: string): StoredUpload | undefined;
}

export function createUploadStore(secret: string, nextId: () => string): UploadStore {
  const uploads = new Map<string, StoredUpload>();
  const sign = (id: string) => createHmac('sha256', secret).update(id).digest('hex').slice(0, 32);
  return {
    presign(fileName, contentType, origin) {
      const id = nextId();
      uploads.set(id, { id, fileName, contentType });
      return {
        sasUrl: `${origin}/__blob/${id}?sv=2024-01-01&sp=cw&sig=${sign(id)}`,
        publicUrl: `${origin}/__files/${id}/${encodeURIComponent(fileName)}`,
      };
    },
    put(id, signature, bytes, contentType) {
      const upload = uploads.get(id);
      if (upload === undefined || signature !== sign(id)) return false;
      upload.bytes = bytes;
      if (contentType !== undefined && contentType !== '') upload.contentType = contentType;
      return true;
    },
    get(id) {
      const upload = uploads.get(id);
      return upload?.bytes === undefined ? undefined : upload;
    },
  };
}
