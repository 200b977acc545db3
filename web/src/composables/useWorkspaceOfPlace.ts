import { watch, type Ref } from 'vue';
import { catalogApi } from '../api/catalog';
import type { Collection, Folder } from '../api/types';
import type { LibraryQuery } from '../search/filters';
import { session } from '../stores/session';

/**
 * The library shows the workspace of the folder or collection in its URL: a link to one
 * of another workspace (or one without ?ws) switches to that workspace, so the header's
 * switcher and the list agree. Looked up once per id, when the loaded catalog lacks it.
 */
export function useWorkspaceOfPlace(
  query: Ref<LibraryQuery>,
  workspaceId: Ref<number | null>,
  catalog: { folders: Ref<Folder[]>; collections: Ref<Collection[]>; loading: Ref<boolean> },
  follow: (workspaceId: number) => void,
): void {
  const asked = new Set<string>();

  async function ownerOf(kind: 'folder' | 'collection', id: number): Promise<number | null> {
    const key = `${kind}:${id}`;
    if (asked.has(key)) return null;
    asked.add(key);
    try {
      return (await (kind === 'folder' ? catalogApi.folder(id) : catalogApi.collection(id))).workspace_id;
    } catch {
      return null;
    }
  }

  watch(
    () => [query.value.folderId, query.value.collectionId, catalog.loading.value] as const,
    async ([folderId, collectionId, loading]) => {
      if (loading) return;
      let owner: number | null = null;
      if (folderId !== null && !catalog.folders.value.some((f) => f.id === folderId)) owner = await ownerOf('folder', folderId);
      else if (collectionId !== null && !catalog.collections.value.some((c) => c.id === collectionId)) owner = await ownerOf('collection', collectionId);
      if (owner !== null && owner !== workspaceId.value && session.workspaces.some((w) => w.id === owner)) follow(owner);
    },
    { immediate: true },
  );
}
