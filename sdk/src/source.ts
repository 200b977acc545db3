/** What an upload reads: a Blob (a browser File too) or, in Node, a file path opened as a Blob that reads from disk lazily. */
export type UploadSource = Blob | string;

export interface OpenedSource {
  blob: Blob;
  /** The File's name or the path's base name; undefined for a bare Blob. */
  name: string | undefined;
  /** The File's or the path's type when known; the server sniffs the stored type from the first bytes anyway. */
  type: string | undefined;
}

/** A path is opened with Node's fs.openAsBlob (no bytes read until a part is sent); node: modules load only then. */
export async function openSource(source: UploadSource): Promise<OpenedSource> {
  if (typeof source !== 'string') {
    const name = typeof (source as Partial<File>).name === 'string' ? (source as File).name : undefined;
    return { blob: source, name, type: source.type || undefined };
  }
  const [{ openAsBlob }, path, mime] = await Promise.all([import('node:fs'), import('node:path'), import('mime-types')]);
  const type = mime.lookup(source) || undefined;
  const blob = await openAsBlob(source, type ? { type } : {});
  return { blob, name: path.basename(source), type };
}
