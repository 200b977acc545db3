import { computed, ref, watch, type Ref } from 'vue';
import { searchApi } from '../api/search';
import { translate } from '../i18n';
import { PER_PAGE, searchRequest, type LibraryQuery } from '../search/filters';

interface ListPage {
  ids: number[];
  found: number;
}

/** Pages of lists read on this asset page: a step across a page boundary and the step after it read one search. */
const MAX_PAGES = 4;

/**
 * Previous and next on the asset page within the library list it was opened from (issue #27).
 *
 * The list travels in the asset page's own URL, as the library's query string (search/filters.ts:
 * `?ws&q&type&tags&…&sort&page&folder&subfolders&collection`), `page` being the page of the list that
 * holds the asset. A reload, a copied link or the browser's Back keep it, and nothing is stored. The
 * asset is looked up on that page (one search, as the library's grid makes it); a step across a page
 * boundary reads the neighbouring page. An asset no longer on its page (moved, renamed under a name
 * sort, changed meanwhile) has no previous or next until it is opened from the library again.
 */
export function useListNeighbours(assetId: Ref<number>, list: Ref<LibraryQuery | null>, workspaceId: Ref<number | null>) {
  const pages = new Map<string, Promise<ListPage>>();
  const here = ref<{ page: number; ids: number[]; index: number; found: number } | null>(null);

  function read(query: LibraryQuery, page: number, ws: number): Promise<ListPage> {
    const request = searchRequest({ ...query, page }, ws);
    const key = JSON.stringify(request);
    let hit = pages.get(key);
    if (!hit) {
      hit = searchApi.search(request).then((res) => {
        const result = res.results[0];
        return { ids: result?.hits.map((h) => Number(h.document.id)) ?? [], found: result?.found ?? 0 };
      });
      hit.catch(() => pages.delete(key));
      pages.set(key, hit);
      if (pages.size > MAX_PAGES) pages.delete(pages.keys().next().value!);
    }
    return hit;
  }

  let seq = 0;
  watch(
    () => [assetId.value, workspaceId.value, list.value && JSON.stringify(list.value)] as const,
    async () => {
      const mine = ++seq;
      here.value = null;
      const query = list.value;
      const ws = workspaceId.value;
      if (!query || !ws) return;
      const page = await read(query, query.page, ws).catch(() => null);
      if (mine !== seq || !page) return;
      const index = page.ids.indexOf(assetId.value);
      here.value = index < 0 ? null : { page: query.page, ids: page.ids, index, found: page.found };
    },
    { immediate: true },
  );

  /** The asset `step` away in the list and the page holding it; null at either end (or without a list). */
  async function neighbour(step: 1 | -1): Promise<{ id: number; page: number } | null> {
    const at = here.value;
    const query = list.value;
    const ws = workspaceId.value;
    if (!at || !query || !ws) return null;
    const i = at.index + step;
    if (i >= 0 && i < at.ids.length) return { id: at.ids[i]!, page: at.page };
    const page = at.page + step;
    if (page < 1 || (page - 1) * PER_PAGE >= at.found) return null;
    const other = await read(query, page, ws);
    const id = step > 0 ? other.ids[0] : other.ids[other.ids.length - 1];
    return id === undefined ? null : { id, page };
  }

  const hasPrev = computed(() => !!here.value && (here.value.index > 0 || here.value.page > 1));
  const hasNext = computed(() => !!here.value && (here.value.index < here.value.ids.length - 1 || here.value.page * PER_PAGE < here.value.found));
  /** "3 of 57": where the asset is in the list. */
  const position = computed(() => (here.value ? translate('asset.viewer.position', { n: (here.value.page - 1) * PER_PAGE + here.value.index + 1, total: here.value.found }) : null));
  return { hasPrev, hasNext, position, neighbour };
}
