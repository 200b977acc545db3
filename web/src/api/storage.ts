import { abortUpload, type UploadRef as SdkUploadRef } from '../../../sdk/src/upload';
import { damClient } from './sdk';

/** An open multipart upload (seed 4.3), as the resume store remembers it: the SDK's reference to one. */
export type UploadRef = Pick<SdkUploadRef, 'uploadId' | 'assetId' | 'workspaceId'>;

/**
 * seed 4.3: the multipart flow itself is the SDK's uploadFile (../upload/multipart-upload.ts); what is left here is
 * giving up an upload a reload interrupted (abort-upload: its parts and unfinished asset go).
 */
export const storageApi = {
  abort: (ref: UploadRef) => abortUpload(damClient(), ref),
};
