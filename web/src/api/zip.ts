import { fetchBlob, requestData, withQuery } from './http';
import type { BodyOf, DataOf } from './schema';

type LinkBody = BodyOf<'/zip/link', 'post'>;
type SelectionKey = 'asset_ids' | 'folder_id' | 'collection_id';
/**
 * What GET /zip/download archives (issue #14): exactly one of them. Narrowed here: the schema can only say that
 * each is optional (the server answers 400 to none or two), so the union of one-key objects is built from its fields.
 */
export type ZipSelection = { [K in SelectionKey]: Required<Pick<LinkBody, K>> & Partial<Record<Exclude<SelectionKey, K>, never>> }[SelectionKey];

/** url: GET /zip/download of the selection with its signature, followed by the browser without the bearer token. */
export type ZipLink = DataOf<'/zip/link', 'post'>;

/**
 * A short-lived signed URL of the selection's ZIP (POST /zip/link). The server checks the
 * selection as the download would (membership, targets, entry limit), so a refusal comes back
 * here in words; the URL itself is then handed to the browser, which streams the archive to disk
 * (a `fetch` with the bearer token would hold the whole archive in memory as a Blob).
 */
export function zipLink(workspaceId: number, selection: ZipSelection, signal?: AbortSignal): Promise<ZipLink> {
  return requestData<ZipLink>('POST', '/zip/link', { body: { workspaceId, ...selection } satisfies LinkBody, signal });
}

/** A page of a stored ZIP's entries (GET /zip/list: its central directory, nothing extracted). */
export type ZipEntries = DataOf<'/zip/list', 'get'>;
export type ZipEntry = ZipEntries['items'][number];
/** An import of a stored ZIP into the library (POST /zip/extract), and its progress. */
export type ZipImport = DataOf<'/zip/extract/{jobId}', 'get'>;

export const zipApi = {
  entries: (assetId: number, page: number, perPage = 50) => requestData<ZipEntries>('GET', withQuery('/zip/list', { assetId, page, per_page: perPage })),
  /** One entry's bytes (GET /zip/extract), inflated by the server as it is sent. */
  entry: (assetId: number, path: string) => fetchBlob(withQuery('/zip/extract', { assetId, path })),
  startImport: (assetId: number, folderId: number | null) =>
    requestData<ZipImport>('POST', '/zip/extract', { body: { assetId, ...(folderId !== null && { folder_id: folderId }) } satisfies BodyOf<'/zip/extract', 'post'> }),
  importStatus: (jobId: number) => requestData<ZipImport>('GET', `/zip/extract/${jobId}`),
};
