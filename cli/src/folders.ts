import type { Dam, OperationAnswer } from '../../sdk/src/index.js';
import type { UploadState } from './state.js';

const PER_PAGE = 250;

/** The key of a directory chain (outermost first) in the state file and the maps. */
export const folderKey = (dirs: string[]): string => JSON.stringify(dirs);

type FolderItem = OperationAnswer<'listFolders'>['data']['items'][number];

/** Every page of the direct children of a folder (`root`: the top level). */
export async function listChildFolders(dam: Dam, workspaceId: number, parent: number | 'root'): Promise<FolderItem[]> {
  const items: FolderItem[] = [];
  for (let page = 1; ; page++) {
    const { data, response } = await dam.api.GET('/dam/folders', { params: { query: { workspaceId, parent_id: parent, per_page: PER_PAGE, page } } });
    if (!data) throw new Error(`listing folders: ${response.status}`);
    items.push(...data.data.items);
    if (items.length >= data.data.total || data.data.items.length === 0) return items;
  }
}

/**
 * The folder of every directory chain, made where missing, parents first. A folder of the same name under the same
 * parent is reused (a second upload of a tree merges into it, as `cp -r` onto an existing directory would); the
 * folders a run made are recorded in the state so that a resume reuses them. A chain whose folder cannot be made
 * maps to the error, which its files report.
 */
export async function ensureFolders(
  dam: Dam,
  state: UploadState,
  workspaceId: number,
  root: number | null,
  chains: string[][],
): Promise<Map<string, number | Error>> {
  const result = new Map<string, number | Error>();
  const children = new Map<number | 'root', Promise<FolderItem[]>>();
  const unique = new Map<string, string[]>();
  for (const dirs of chains) {
    for (let n = 1; n <= dirs.length; n++) unique.set(folderKey(dirs.slice(0, n)), dirs.slice(0, n));
  }
  const ordered = [...unique.values()].sort((a, b) => a.length - b.length);
  for (const dirs of ordered) {
    const key = folderKey(dirs);
    const parent = dirs.length === 1 ? root : result.get(folderKey(dirs.slice(0, -1)));
    if (parent instanceof Error) {
      result.set(key, parent);
      continue;
    }
    const recorded = state.folders.get(key);
    if (recorded !== undefined) {
      result.set(key, recorded);
      continue;
    }
    const name = dirs[dirs.length - 1]!;
    try {
      const parentRef = parent ?? 'root';
      if (!children.has(parentRef)) children.set(parentRef, listChildFolders(dam, workspaceId, parentRef));
      const existing = (await children.get(parentRef)!).find((f) => f.name === name);
      let id = existing?.id;
      if (id === undefined) {
        const { data, error, response } = await dam.api.POST('/dam/folders', { body: { workspace_id: workspaceId, name, parent_id: parent } });
        if (!data) throw new Error(`${response.status} ${(error as { error?: string } | undefined)?.error ?? ''}`.trim());
        id = data.data.id;
      }
      state.folder(key, id);
      result.set(key, id);
    } catch (err) {
      result.set(key, new Error(`cannot make folder ${dirs.join('/')}: ${(err as Error).message}`));
    }
  }
  return result;
}
