import { computed, reactive, ref, type Ref } from 'vue';
import type { BulkRequest } from '../api/types';
import { GridSelection } from '../library/selection';
import { assetFilter, type LibraryQuery } from '../search/filters';

/** What a bulk action acts on: assets by id, or every asset of a search less the deselected ones (issue #27). */
export type BulkTarget = Pick<BulkRequest, 'asset_ids' | 'search' | 'except_ids'>;

/**
 * The library's selection (issue #27): assets picked by id, kept while paging (the library clears it when the
 * search, a filter, the place or the workspace changes), or "all matching": every asset the current search finds,
 * less those deselected since. A click and a Shift-click range work the same in both: in "all matching" they
 * deselect and select again, by keeping the exceptions. Bulk actions receive an "all matching" selection as the
 * search itself (POST /dam/assets/bulk with `search` and `except_ids`).
 */
export function useLibrarySelection(query: Ref<LibraryQuery>, found: Ref<number>) {
  const picked = reactive(new Set<number>());
  const except = reactive(new Set<number>());
  const allMatching = ref(false);
  const byId = new GridSelection(picked);
  const exceptions = new GridSelection(except);

  const count = computed(() => (allMatching.value ? Math.max(0, found.value - except.size) : picked.size));
  const has = (id: number) => (allMatching.value ? !except.has(id) : picked.has(id));

  function clear(): void {
    allMatching.value = false;
    byId.clear();
    exceptions.clear();
  }
  /** A tile's click; `order`: the page's ids in grid order (for a Shift-click range). */
  function click(order: readonly number[], id: number, shift: boolean): void {
    (allMatching.value ? exceptions : byId).click(order, id, shift);
    if (count.value === 0) clear();
  }
  /** Selects every asset of the page, or (when all of it is selected) deselects it. */
  function togglePage(order: readonly number[]): void {
    const select = !order.every(has);
    for (const id of order) {
      if (allMatching.value) {
        if (select) except.delete(id);
        else except.add(id);
      } else if (select) picked.add(id);
      else picked.delete(id);
    }
    if (count.value === 0) clear();
  }
  function selectAllMatching(): void {
    byId.clear();
    exceptions.clear();
    allMatching.value = true;
  }

  /** The selection as a bulk request's target. */
  function target(): BulkTarget {
    if (!allMatching.value) return { asset_ids: [...picked] };
    const filter = assetFilter(query.value);
    return {
      search: { q: query.value.q.trim() || '*', query_by: 'search_name', ...(filter ? { filter_by: filter } : {}) },
      ...(except.size ? { except_ids: [...except] } : {}),
    };
  }

  return { picked, allMatching, count, has, clear, click, togglePage, selectAllMatching, target };
}
