import { ref, watch, type Ref } from 'vue';
import { searchApi } from '../api/search';
import type { SearchDocument, SearchRequest } from '../api/types';
import { facetPlan, facetsOf, type Facets } from '../search/facets';
import { searchRequest, type LibraryQuery } from '../search/filters';
import { errorText } from '../stores/toasts';

/**
 * The library's assets through POST /search-engine/search (seed 4.1): the
 * query's text, filters, sort and page, narrowed to a folder or to the assets
 * of a collection (the collection_id filter, so a collection of any size pages
 * like the library). With them the facet counts of the filters (issue #12,
 * search/facets.ts): those of fields without a filter set come with the grid's
 * search; each field with a filter set is counted by a search of its own, which
 * is not repeated while only the page changes.
 */
export function useAssetSearch(query: Ref<LibraryQuery>, workspaceId: Ref<number | null>) {
  const docs = ref<SearchDocument[]>([]);
  const found = ref(0);
  const loading = ref(false);
  const error = ref<string | null>(null);
  const facets = ref<Facets>({});
  let controller: AbortController | undefined;
  /** The last separate facet searches and what they counted. */
  let apart: { key: string; facets: Facets } = { key: '', facets: {} };

  async function countApart(requests: { request: SearchRequest }[], key: string, signal: AbortSignal, fresh: boolean): Promise<Facets> {
    if (!fresh && key === apart.key) return apart.facets;
    const answers = await Promise.all(
      // A facet that cannot be counted shows no numbers; the grid is not held up by it.
      requests.map(({ request }) =>
        searchApi.search(request, signal).catch((err: unknown) => {
          if ((err as Error).name === 'AbortError') throw err;
          return null;
        }),
      ),
    );
    const counted = Object.assign({}, ...answers.map((res) => facetsOf(res?.results[0]?.facet_counts))) as Facets;
    apart = { key, facets: counted };
    return counted;
  }

  async function run(fresh = true): Promise<void> {
    const ws = workspaceId.value;
    controller?.abort();
    if (!ws) return;
    const mine = (controller = new AbortController());
    loading.value = true;
    error.value = null;
    const plan = facetPlan(query.value, ws);
    const apartKey = JSON.stringify(plan.apart.map((a) => a.request));
    const others = countApart(plan.apart, apartKey, mine.signal, fresh);
    others.catch(() => undefined);
    try {
      const res = await searchApi.search(searchRequest(query.value, ws, plan.main), mine.signal);
      if (mine !== controller) return;
      const result = res.results[0];
      docs.value = result?.hits.map((h) => h.document) ?? [];
      found.value = result?.found ?? 0;
      loading.value = false;
      const counted = { ...facetsOf(result?.facet_counts), ...(await others) };
      if (mine === controller) facets.value = counted;
    } catch (err) {
      if ((err as Error).name === 'AbortError') return;
      error.value = errorText(err);
      docs.value = [];
      found.value = 0;
      facets.value = {};
    } finally {
      if (mine === controller) loading.value = false;
    }
  }

  watch([query, workspaceId], () => void run(false), { immediate: true, deep: true });
  return { docs, found, loading, error, facets, reload: () => run(true) };
}
