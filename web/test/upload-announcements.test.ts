import { describe, expect, it } from 'vitest';
import { uploadAlertText, uploadStatusText } from '../src/upload/announcements';
import type { UploadItem } from '../src/upload/upload-queue';

let id = 0;
const item = (name: string, state: UploadItem['state'], extra: Partial<UploadItem> = {}): UploadItem => ({
  id: ++id,
  file: new File(['x'], name),
  name,
  size: 1,
  loaded: 0,
  state,
  sha256: null,
  duplicateOf: null,
  error: null,
  refusal: null,
  assetId: null,
  unreadable: null,
  resumed: false,
  workspaceId: 1,
  folderId: null,
  ...extra,
});

/** Issue #29: what the upload panel's live regions say, at each milestone. */
describe('upload announcements', () => {
  it('says nothing before any upload, then the files under way, then the result', () => {
    expect(uploadStatusText([])).toBe('');
    expect(uploadStatusText([item('a.png', 'checking'), item('b.png', 'queued')])).toBe('Uploading 2 files');
    expect(uploadStatusText([item('a.png', 'done'), item('b.png', 'uploading', { loaded: 0.5 })])).toBe('Uploading 1 file, 1 uploaded');
    expect(uploadStatusText([item('a.png', 'done'), item('b.png', 'failed', { error: 'Network' })])).toBe('Uploads finished: 1 uploaded, 1 failed');
    expect(uploadStatusText([item('a.png', 'done'), item('b.png', 'done')], 1)).toBe('Uploads finished: 2 uploaded, 1 unreadable');
    expect(uploadStatusText([item('a.png', 'duplicate'), item('b.png', 'done')])).toBe('1 file already in the library: skip or upload anyway');
  });

  it('alerts each failure with its reason, and nothing while none failed', () => {
    expect(uploadAlertText([item('a.png', 'uploading'), item('b.png', 'done')])).toBe('');
    expect(
      uploadAlertText([
        item('a.png', 'failed', { error: 'The request body is too large' }),
        item('b.png', 'failed', { refusal: { code: 'QUOTA_EXCEEDED', quota: { limit: 'storage_bytes', used: 10, requested: 5 } } }),
      ]),
    ).toBe("Upload of a.png failed: The request body is too large. Upload of b.png failed: over the workspace plan's limit");
  });
});
