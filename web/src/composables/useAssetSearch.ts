import { ref, watch, type Ref } from 'vue';
import { searchApi } from '../api/search';
import type { SearchDocument } from '../api/types';
import { searchRequest, type LibraryQuery } from '../search/filters';
import { errorText } from '../stores/toasts';

/**
 * The library's assets through POST /search-engine/search (seed 4.1): the
 * query's text, filters, sort and page, narrowed to a folder or to the assets
 * of a collection (the collection_id filter, so a collection of any size pages
 * like the library).
 */
export function useAssetSearch(query: Ref<LibraryQuery>, workspaceId: Ref<number | null>) {
  const docs = ref<SearchDocument[]>([]);
  const found = ref(0);
  const loading = ref(false);
  const error = ref<string | null>(null);
  let controller: AbortController | undefined;

  async function run(): Promise<void> {
    const ws = workspaceId.value;
    controller?.abort();
    if (!ws) return;
    const mine = (controller = new AbortController());
    loading.value = true;
    error.value = null;
    try {
      const res = await searchApi.search(searchRequest(query.value, ws), mine.signal);
      const result = res.results[0];
      docs.value = result?.hits.map((h) => h.document) ?? [];
      found.value = result?.found ?? 0;
    } catch (err) {
      if ((err as Error).name === 'AbortError') return;
      error.value = errorText(err);
      docs.value = [];
      found.value = 0;
    } finally {
      if (mine === controller) loading.value = false;
    }
  }

  watch([query, workspaceId], () => void run(), { immediate: true, deep: true });
  return { docs, found, loading, error, reload: run };
}
