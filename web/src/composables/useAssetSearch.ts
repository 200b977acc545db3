import { ref, watch, type Ref } from 'vue';
import { catalogApi } from '../api/catalog';
import { searchApi } from '../api/search';
import type { SearchDocument } from '../api/types';
import { searchRequest, type LibraryQuery } from '../search/filters';
import { errorText } from '../stores/toasts';

/**
 * The library's assets through POST /search-engine/search (seed 4.1): the
 * query's text, filters, sort and page, narrowed to a folder or to the assets
 * of a collection.
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
      let ids: number[] | null = null;
      if (query.value.collectionId !== null) {
        ids = (await catalogApi.collection(query.value.collectionId)).asset_ids;
        if (ids.length === 0) {
          docs.value = [];
          found.value = 0;
          return;
        }
      }
      const res = await searchApi.search(searchRequest(query.value, ws, ids), mine.signal);
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
