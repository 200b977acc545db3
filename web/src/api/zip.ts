import { requestData } from './http';

/** What GET /zip/download archives (issue #14): exactly one of them. */
export type ZipSelection = { asset_ids: number[] } | { folder_id: number } | { collection_id: number };

export interface ZipLink {
  /** GET /zip/download of the selection with its signature: the browser follows it without the bearer token. */
  url: string;
  /** Unix seconds (DAM_ZIP_LINK_TTL after issuing, 5 minutes by default). */
  expires_at: number;
}

/**
 * A short-lived signed URL of the selection's ZIP (POST /zip/link). The server checks the
 * selection as the download would (membership, targets, entry limit), so a refusal comes back
 * here in words; the URL itself is then handed to the browser, which streams the archive to disk
 * (a `fetch` with the bearer token would hold the whole archive in memory as a Blob).
 */
export function zipLink(workspaceId: number, selection: ZipSelection, signal?: AbortSignal): Promise<ZipLink> {
  return requestData<ZipLink>('POST', '/zip/link', { body: { workspaceId, ...selection }, signal });
}
