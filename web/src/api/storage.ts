import { request } from './http';
import type { UploadPart } from './types';

export interface UploadRef {
  uploadId: string;
  assetId: number;
  workspaceId: number;
}

const refQuery = (ref: UploadRef) => ({ UploadId: ref.uploadId, assetId: ref.assetId, workspaceId: ref.workspaceId });

/** seed 4.3: the multipart flow, plus list-parts (resume) and abort-upload (cancel). */
export const storageApi = {
  /** `fileSize`: the bytes to come, declared so a plan's storage limit refuses the upload before any is sent (issue #17). */
  startUpload: (input: { workspaceId: number; fileType: string; fileName: string; folderId?: number | null; assetId?: number; fileSize?: number }) =>
    request<{ uploadId: string; assetId: number; minPartSize: number }>('GET', '/storage/start-upload', {
      query: {
        workspaceId: input.workspaceId,
        fileType: input.fileType,
        fileName: input.fileName,
        folderId: input.folderId ?? undefined,
        assetId: input.assetId,
        fileSize: input.fileSize,
      },
    }),
  uploadUrl: (ref: UploadRef, partNumber: number, signal?: AbortSignal) =>
    request<{ url: string; expiresIn: number }>('GET', '/storage/get-upload-url', { query: { PartNumber: partNumber, ...refQuery(ref) }, signal }),
  complete: (ref: UploadRef, parts: UploadPart[]) =>
    request<{ success: boolean; location: string; key: string }>('POST', '/storage/complete-upload', { body: { ...ref, parts } }),
  listParts: (ref: UploadRef) =>
    request<{ parts: { PartNumber: number; ETag: string; Size: number }[] }>('GET', '/storage/list-parts', { query: refQuery(ref) }),
  abort: (ref: UploadRef) => request<{ success: boolean }>('DELETE', '/storage/abort-upload', { query: refQuery(ref) }),
};
