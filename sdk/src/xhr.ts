import type { PartPut, PartResponse } from './upload.js';

/** What xhrPutPart uses of XMLHttpRequest: the SDK is also compiled without the DOM library (Node, the CLI). */
interface Xhr {
  open(method: string, url: string): void;
  send(body: Blob): void;
  abort(): void;
  getResponseHeader(name: string): string | null;
  readonly status: number;
  readonly responseText: string;
  readonly upload: { onprogress: ((event: { loaded: number }) => void) | null };
  onerror: (() => void) | null;
  ontimeout: (() => void) | null;
  onabort: (() => void) | null;
  onload: (() => void) | null;
}

/**
 * A `putPart` for browsers: XMLHttpRequest reports the bytes of a body while it is sent, which fetch cannot, so a
 * progress bar moves within a part. A network failure rejects with a TypeError (retried like fetch's), an abort with
 * the signal's reason.
 */
export function xhrPutPart({ url, body, signal, onBytes }: PartPut): Promise<PartResponse> {
  return new Promise<PartResponse>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const XHR = (globalThis as unknown as { XMLHttpRequest: new () => Xhr }).XMLHttpRequest;
    const xhr = new XHR();
    xhr.open('PUT', url);
    xhr.upload.onprogress = (e) => onBytes(e.loaded);
    xhr.onerror = () => reject(new TypeError('The connection to the storage failed'));
    xhr.ontimeout = xhr.onerror;
    xhr.onabort = () => reject((signal?.reason as Error | undefined) ?? new DOMException('The part upload was aborted', 'AbortError'));
    xhr.onload = () =>
      resolve({ status: xhr.status, etag: xhr.getResponseHeader('ETag'), ...(xhr.status >= 300 ? { body: xhr.responseText } : {}) });
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(body);
  });
}
