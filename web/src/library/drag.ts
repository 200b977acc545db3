/**
 * Assets dragged from the grid onto a folder of the tree carry their ids under
 * their own type, so that a folder accepts them and nothing else (links, text,
 * files: files dropped anywhere are uploads).
 */
export const ASSET_DRAG_TYPE = 'application/x-dam-assets';

export function startAssetDrag(event: DragEvent, ids: readonly number[]): void {
  if (!event.dataTransfer) return;
  event.dataTransfer.setData(ASSET_DRAG_TYPE, JSON.stringify(ids));
  event.dataTransfer.effectAllowed = 'all';
}

/** Whether a drag carries assets (during dragover only the types can be read). */
export function carriesAssets(event: DragEvent): boolean {
  return Array.from(event.dataTransfer?.types ?? []).includes(ASSET_DRAG_TYPE);
}

/** The dragged asset ids, on drop; [] when the data is not ours or malformed. */
export function draggedAssets(event: DragEvent): number[] {
  try {
    const ids: unknown = JSON.parse(event.dataTransfer?.getData(ASSET_DRAG_TYPE) || '[]');
    return Array.isArray(ids) ? ids.filter((id): id is number => Number.isSafeInteger(id) && id > 0) : [];
  } catch {
    return [];
  }
}
