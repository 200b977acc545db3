import { abortUpload } from '../../../sdk/src/upload';
import { damClient } from './sdk';

/** An open multipart upload (seed 4.3), as the resume store remembers it. */
export interface UploadRef {
  uploadId: string;
  assetId: number;
  workspaceId: number;
}

/**
 * seed 4.3: the multipart flow itself is the SDK's uploadFile (../upload/multipart-upload.ts); what is left here is
 * giving up an upload a reload interrupted (abort-upload: its parts and unfinished asset go).
 */
export const storageApi = {
  abort: (ref: UploadRef) => abortUpload(damClient(), ref),
};
