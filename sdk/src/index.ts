/**
 * @dam/sdk: a typed client of the DAM service API. `createDam()` gives the openapi-fetch client (`dam.api`, typed
 * from the OpenAPI document: sdk/src/schema.d.ts) and the helpers for the flows that take several calls.
 */
import { createDamClient, type DamClient, type DamClientOptions } from './client.js';
import { downloadToFile, type DownloadOptions } from './download.js';
import type { UploadSource } from './source.js';
import { abortUpload, uploadFile, uploadVersion, type UploadOptions, type UploadRef, type UploadResult } from './upload.js';
import { uploadWhole, type UploadWholeOptions } from './upload-whole.js';

export type { paths, components, operations } from './schema.js';
export type { OperationAnswer, OperationBody, OperationId, OperationQuery } from './operation-types.js';
export { createDamClient, type DamClient, type DamClientOptions, type FetchFn } from './client.js';
export { DamApiError } from './errors.js';
export type { RetryPolicy } from './retry.js';
export type { UploadSource } from './source.js';
export type { DownloadOptions } from './download.js';
export type { PartPut, PartResponse, UploadOptions, UploadProgress, UploadRef, UploadResult } from './upload.js';
export type { UploadWholeOptions } from './upload-whole.js';
export { abortUpload, downloadToFile, uploadFile, uploadVersion, uploadWhole };
/** Browsers: a part sender that reports bytes while a part is on its way (pass as `putPart`). */
export { xhrPutPart } from './xhr.js';

export interface Dam extends DamClient {
  uploadFile(source: UploadSource, options: UploadOptions): Promise<UploadResult>;
  uploadVersion(assetId: number, source: UploadSource, options?: Omit<UploadOptions, 'workspaceId' | 'folderId'> & { workspaceId?: number }): Promise<UploadResult>;
  abortUpload(ref: Pick<UploadRef, 'uploadId' | 'assetId' | 'workspaceId'>): Promise<void>;
  /** A small file in one request (POST /api/upload-asset). */
  uploadWhole(source: UploadSource, options: UploadWholeOptions): Promise<{ assetId: number }>;
  /** Node only. */
  downloadToFile(assetId: number, filePath: string, options?: DownloadOptions): Promise<number>;
}

/** The client with its helpers bound. */
export function createDam(options: DamClientOptions): Dam {
  const client = createDamClient(options);
  return {
    ...client,
    uploadFile: (source, o) => uploadFile(client, source, o),
    uploadVersion: (assetId, source, o) => uploadVersion(client, assetId, source, o),
    abortUpload: (ref) => abortUpload(client, ref),
    uploadWhole: (source, o) => uploadWhole(client, source, o),
    downloadToFile: (assetId, filePath, o) => downloadToFile(client, assetId, filePath, o),
  };
}
