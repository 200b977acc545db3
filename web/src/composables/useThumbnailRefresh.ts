import { getCurrentScope, onScopeDispose, watch, type Ref } from 'vue';
import type { SearchDocument } from '../api/types';
import { versionsApi, type VersionsApi } from '../api/versions';
import { pollWithBackoff, THUMBNAIL_BACKOFF, type Backoff } from '../util/backoff';
import { isGenericIcon } from '../util/thumbnails';

const key = (doc: SearchDocument) => `${doc.id}@${doc.modified_at}`;

/**
 * Thumbnails that appear without a reload. A search document carries its current version's
 * thumbnail_url, which is the generic icon while the thumbnail is being made; it does not say
 * whether one is coming. So for the shown documents with an icon, the current version's
 * preview_status is read (GET /dam/assets/:id/versions) with backoff (1, 2, 4, 8 s ..., at
 * most a minute): pending ones are read again, and a ready one's thumbnail_url replaces
 * the icon in place. Documents found not pending (no preview for their type) are not read
 * again for the same modification.
 */
export function useThumbnailRefresh(docs: Ref<SearchDocument[]>, api: Pick<VersionsApi, 'list'> = versionsApi, backoff: Backoff = THUMBNAIL_BACKOFF) {
  const settled = new Set<string>();
  let poll: { stop: () => void } | undefined;

  async function check(): Promise<boolean> {
    const waiting = docs.value.filter((d) => isGenericIcon(d.thumbnail_url) && !settled.has(key(d)));
    await Promise.all(
      waiting.map(async (doc) => {
        // A failed read is tried again next time.
        const versions = await api.list(Number(doc.id)).catch(() => null);
        if (!versions) return;
        const current = versions.find((v) => v.is_current);
        if (current?.preview_status === 'pending') return;
        settled.add(key(doc));
        if (current && !isGenericIcon(current.thumbnail_url)) doc.thumbnail_url = current.thumbnail_url;
      }),
    );
    return waiting.every((d) => settled.has(key(d)));
  }

  function restart(list: SearchDocument[]): void {
    poll?.stop();
    poll = undefined;
    if (list.some((d) => isGenericIcon(d.thumbnail_url) && !settled.has(key(d)))) poll = pollWithBackoff(check, backoff);
  }

  watch(docs, restart, { immediate: true });
  if (getCurrentScope()) onScopeDispose(() => poll?.stop());
  return { stop: () => poll?.stop() };
}
