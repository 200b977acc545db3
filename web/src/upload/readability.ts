import { searchApi } from '../api/search';
import { translate } from '../i18n';

/**
 * Issue #27: which uploaded files turned out unreadable. The server checks a file when it makes its preview,
 * shortly after the upload; the upload panel learns the outcome by searching for the uploads that are unreadable
 * (`unreadable:true && id:=[…]`, one request per workspace and round for every file waiting), a few rounds over
 * about half a minute after the last upload finished, then stops: a check that takes longer shows on the tile and
 * the asset page instead.
 */

export interface ReadabilityWatch {
  /** The uploaded asset; null while it is not known. */
  assetId: number | null;
  workspaceId: number;
  /** The reason in words once the server found the file unreadable. */
  unreadable: string | null;
}

/** Delays before each round, counted from the last upload that finished. */
const ROUND_DELAYS_MS = [2000, 3000, 4000, 6000, 7000, 8000];
/** Ids per request: the filter stays far below the server's 4,096 characters. */
const IDS_PER_REQUEST = 200;

const waiting = new Set<ReadabilityWatch>();
let round = 0;
let timer: ReturnType<typeof setTimeout> | undefined;

function schedule(): void {
  clearTimeout(timer);
  timer = round < ROUND_DELAYS_MS.length && waiting.size ? setTimeout(() => void check(), ROUND_DELAYS_MS[round]) : undefined;
}

/** Watches an upload (the reactive item, so the panel shows what is found); every new one starts the rounds again. */
export function watchReadability(item: ReadabilityWatch): void {
  if (item.assetId === null) return;
  waiting.add(item);
  round = 0;
  schedule();
}

async function unreadableOf(workspaceId: number, ids: number[]): Promise<Map<number, string>> {
  const found = new Map<number, string>();
  const res = await searchApi.search({
    request: { q: '*', collections: ['digital_assets'] },
    filterQuery: { digital_assets: `unreadable:true && id:=[${ids.join(', ')}]` },
    commonSearchParams: { per_page: IDS_PER_REQUEST },
    workspace_id_filter: String(workspaceId),
  });
  for (const hit of res.results[0]?.hits ?? []) {
    const doc = hit.document;
    if (doc.unreadable) found.set(Number(doc.id), doc.unreadable_reason ?? translate('upload.unreadableFallback'));
  }
  return found;
}

async function check(): Promise<void> {
  round += 1;
  const byWorkspace = new Map<number, ReadabilityWatch[]>();
  for (const item of waiting) byWorkspace.set(item.workspaceId, [...(byWorkspace.get(item.workspaceId) ?? []), item]);
  for (const [workspaceId, items] of byWorkspace) {
    for (let i = 0; i < items.length; i += IDS_PER_REQUEST) {
      const chunk = items.slice(i, i + IDS_PER_REQUEST);
      // The check only informs: a failed round is tried again in the next.
      const found = await unreadableOf(workspaceId, chunk.map((c) => c.assetId!)).catch(() => new Map<number, string>());
      for (const item of chunk) {
        const reason = found.get(item.assetId!);
        if (reason === undefined) continue;
        item.unreadable = reason;
        waiting.delete(item);
      }
    }
  }
  if (round >= ROUND_DELAYS_MS.length) waiting.clear();
  schedule();
}
