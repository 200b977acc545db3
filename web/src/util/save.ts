/** Hands a downloaded file to the browser as a download under its name. */
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/**
 * Follows a download URL without leaving the page (the answer is an attachment): the browser
 * streams it to disk, however large, instead of the page holding it. The URL must work without
 * the bearer token (a signed URL, a shared link's), since a navigation cannot send a header.
 */
export function followDownload(url: string): void {
  const a = document.createElement('a');
  a.href = url;
  a.download = '';
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
}
