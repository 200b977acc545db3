import { requestData } from './http';
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
