import { ref, watch, type Ref } from 'vue';
import { catalogApi } from '../api/catalog';
import type { Collection, Folder } from '../api/types';
import { errorText } from '../stores/toasts';

/** The folders and collections of a workspace, reloaded when it changes. */
export function useWorkspaceCatalog(workspaceId: Ref<number | null>) {
  const folders = ref<Folder[]>([]);
  const collections = ref<Collection[]>([]);
  const loading = ref(false);
  const error = ref<string | null>(null);
  let generation = 0;

  async function reload(): Promise<void> {
    const ws = workspaceId.value;
    const mine = ++generation;
    if (!ws) {
      folders.value = [];
      collections.value = [];
      return;
    }
    loading.value = true;
    error.value = null;
    try {
      const [f, c] = await Promise.all([catalogApi.folders(ws), catalogApi.collections(ws)]);
      if (mine !== generation) return;
      folders.value = f;
      collections.value = c;
    } catch (err) {
      if (mine === generation) error.value = errorText(err);
    } finally {
      if (mine === generation) loading.value = false;
    }
  }

  watch(workspaceId, () => void reload(), { immediate: true });

  /** "Parent / Child" paths, for pickers and breadcrumbs. */
  function pathOf(id: number | null): Folder[] {
    const byId = new Map(folders.value.map((f) => [f.id, f]));
    const out: Folder[] = [];
    for (let f = id === null ? undefined : byId.get(id); f && out.length < 100; f = f.parent_id === null ? undefined : byId.get(f.parent_id)) out.unshift(f);
    return out;
  }

  /** Every folder below `id` (not `id` itself), breadth first; a corrupt cycle ends the walk. */
  function descendantIds(id: number): number[] {
    const children = new Map<number, number[]>();
    for (const f of folders.value) if (f.parent_id !== null) children.set(f.parent_id, [...(children.get(f.parent_id) ?? []), f.id]);
    const seen = new Set([id]);
    const out: number[] = [];
    for (let i = -1; i < out.length; i += 1) {
      for (const child of children.get(i < 0 ? id : out[i]!) ?? []) {
        if (!seen.has(child)) {
          seen.add(child);
          out.push(child);
        }
      }
    }
    return out;
  }

  return { folders, collections, loading, error, reload, pathOf, descendantIds };
}
