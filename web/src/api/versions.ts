import { authHeader, fetchBlob, request, toApiError, ApiError } from './http';
import type { ResponseOf } from './schema';
import type { Version, VersionPreview } from './types';

/** Some answers come as {success, data}, some bare (seed 4.5 names the bare object); accept both. */
function unwrap<T>(value: unknown): T {
  if (value && typeof value === 'object' && 'success' in value && 'data' in value) return (value as { data: T }).data;
  return value as T;
}

/** POST with upload progress: fetch cannot report it, XMLHttpRequest can. */
function postForm<T>(path: string, form: FormData, onProgress?: (loaded: number, total: number) => void, signal?: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', path);
    for (const [k, v] of Object.entries(authHeader())) xhr.setRequestHeader(k, v);
    xhr.setRequestHeader('accept', 'application/json');
    xhr.upload.onprogress = (e) => onProgress?.(e.loaded, e.total);
    xhr.onerror = () => reject(new ApiError('The server could not be reached. Check your connection.', 0));
    xhr.onabort = () => reject(new DOMException('Upload cancelled', 'AbortError'));
    xhr.onload = () => {
      const res = new Response(xhr.responseText || null, { status: xhr.status, statusText: xhr.statusText });
      if (xhr.status >= 200 && xhr.status < 300) {
        resolve(unwrap<T>(JSON.parse(xhr.responseText)));
      } else {
        void toApiError(res).then(reject);
      }
    };
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(form);
  });
}

/** seed 4.5: asset versions. */
export const versionsApi = {
  list: async (assetId: number) => unwrap<Version[]>(await request<unknown>('GET', `/dam/assets/${assetId}/versions`)),
  upload: (assetId: number, file: File, onProgress?: (loaded: number, total: number) => void, signal?: AbortSignal) => {
    const form = new FormData();
    form.append('file', file, file.name);
    return postForm<ResponseOf<'/dam/assets/{id}/versions', 'post'>>(`/dam/assets/${assetId}/versions`, form, onProgress, signal);
  },
  restore: async (versionId: number) => unwrap<ResponseOf<'/dam/versions/{id}/restore', 'post'>>(await request<unknown>('POST', `/dam/versions/${versionId}/restore`)),
  preview: async (versionId: number) => unwrap<VersionPreview>(await request<unknown>('GET', `/dam/versions/${versionId}/preview`)),
  download: (versionId: number) => fetchBlob(`/dam/versions/${versionId}/download`),
};

export type VersionsApi = typeof versionsApi;
