import type { Folder } from '../api/types';
import type { PickOption } from '../components/types';
import { translate } from '../i18n';

/**
 * The library folders an import can go into, as the library's "Move to folder" offers them: the top level
 * first, then every folder by its path ("Projects / 2024 / Spring").
 */
export function folderPickOptions(folders: readonly Folder[], pathOf: (id: number) => Folder[]): PickOption[] {
  return [
    { value: null, label: translate('drives.folders.none') },
    ...folders.map((f) => ({ value: f.id, label: pathOf(f.id).map((p) => p.name).join(' / ') })).sort((a, b) => a.label.localeCompare(b.label)),
  ];
}

/** A library folder's name for messages ("the top level" for none; a folder not known (yet): "a folder"). */
export function folderLabel(folders: readonly Folder[], id: number | null): string {
  if (id === null) return translate('drives.folders.topLevel');
  const folder = folders.find((f) => f.id === id);
  return folder ? translate('drives.folders.named', { name: folder.name }) : translate('drives.folders.unknown');
}
