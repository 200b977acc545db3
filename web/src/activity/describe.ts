import type { ActivityAction, ActivityEntry, FieldChange } from '../api/types';
import { count } from '../library/results';
import { formatBytes, formatDate } from '../util/format';

/**
 * An activity entry (GET /dam/activity, issue #11) in words: a sentence with the subject's place
 * marked (`{subject}`, so the page can make it a link) and one line per changed field, before → after.
 */

export interface DescribeContext {
  /** A folder's name by id (the workspace's folders as loaded); unknown ids read "folder #id". */
  folderName?: (id: number) => string | undefined;
}

/** One line under the sentence: a field's before → after, or a note. */
export interface ChangeLine {
  label: string;
  before?: string;
  after?: string;
  text?: string;
}

const TEMPLATES: Record<ActivityAction, string> = {
  'asset.upload': 'uploaded {subject}',
  'asset.update': 'edited {subject}',
  'asset.move': 'moved {subject}',
  'asset.trash': 'moved {subject} to the trash',
  'asset.restore': 'restored {subject} from the trash',
  'asset.delete': 'deleted {subject} for good',
  'version.upload': 'uploaded a new version of {subject}',
  'version.restore': 'restored an earlier version of {subject}',
  'version.delete': 'deleted version {subject}',
  'folder.create': 'created the folder {subject}',
  'folder.update': 'edited the folder {subject}',
  'folder.move': 'moved the folder {subject}',
  'folder.trash': 'moved the folder {subject} to the trash',
  'folder.restore': 'restored the folder {subject} from the trash',
  'folder.delete': 'deleted the folder {subject} for good',
  'collection.create': 'created the collection {subject}',
  'collection.update': 'edited the collection {subject}',
  'collection.trash': 'moved the collection {subject} to the trash',
  'collection.restore': 'restored the collection {subject} from the trash',
  'collection.delete': 'deleted the collection {subject} for good',
  'collection.add_assets': 'added assets to the collection {subject}',
  'collection.remove_assets': 'removed assets from the collection {subject}',
  'member.add': 'added {subject} to the workspace',
  'member.remove': 'removed {subject} from the workspace',
  'member.role': 'changed the role of {subject}',
  'member.invite': 'invited {subject}',
  'member.uninvite': 'revoked the invitation of {subject}',
  'member.join': 'joined the workspace',
  'workspace.rename': 'renamed the workspace to {subject}',
  'workspace.settings': 'changed the settings of the workspace {subject}',
  'workspace.empty_trash': 'emptied the trash',
  'workspace.purge_trash': 'deleted old items from the trash for good',
  // issue #14: the subject is the link, named by its description or else what it shows.
  'share.create': 'created the shared link {subject}',
  'share.update': 'changed the shared link {subject}',
  'share.revoke': 'revoked the shared link {subject}',
};

const LABELS: Record<string, string> = {
  display_file_name: 'Name',
  name: 'Name',
  description: 'Description',
  tags: 'Tags',
  visibility: 'Visibility',
  folder_id: 'Folder',
  parent_id: 'Parent folder',
  version: 'Version',
  file_name: 'File',
  file_size: 'Size',
  mime_type: 'Type',
  role: 'Role',
  expires_at: 'Expires',
  has_password: 'Password',
  password: 'Password',
  allow_download: 'Downloads',
  max_downloads: 'Download limit',
};

/** Fields the sentence already tells (or that only repeat it). */
const IN_SENTENCE: Partial<Record<ActivityAction, string[]>> = {
  'version.restore': ['restored_from'],
  'version.upload': ['restored_from'],
  // A first version: nothing was there before, the sentence says it all.
  'asset.upload': ['version', 'file_name', 'file_size', 'mime_type', 'restored_from', 'metadata'],
  'collection.add_assets': ['asset_ids'],
  'collection.remove_assets': ['asset_ids'],
  'member.add': ['role'],
  'member.remove': ['role'],
  'member.invite': ['role'],
  'member.uninvite': ['role'],
  'member.join': ['role'],
  'workspace.empty_trash': ['assets', 'folders', 'collections'],
  'workspace.purge_trash': ['assets', 'folders', 'collections'],
};

const isEmpty = (v: unknown) => v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0);
const quoted = (v: unknown) => `“${String(v)}”`;

/** A value as the user reads it; `none` (or what the field calls nothing) when there is none. */
export function formatValue(field: string, value: unknown, ctx: DescribeContext = {}): string {
  // A shared link's settings (share.update), where null and false have a meaning of their own.
  if (field === 'expires_at') return typeof value === 'number' ? formatDate(value) : 'never';
  if (field === 'has_password') return value ? 'set' : 'none';
  if (field === 'allow_download') return value ? 'allowed' : 'not allowed';
  if (field === 'max_downloads') return typeof value === 'number' ? String(value) : 'no limit';
  if (field === 'folder_id' || field === 'parent_id') {
    if (isEmpty(value)) return 'top level';
    const id = Number(value);
    const name = ctx.folderName?.(id);
    return name ? quoted(name) : `folder #${id}`;
  }
  if (isEmpty(value)) return 'none';
  if (field === 'visibility') return Number(value) === 0 ? 'public' : 'private';
  if (field === 'file_size' && typeof value === 'number') return formatBytes(value);
  if (field === 'display_file_name' || field === 'name' || field === 'file_name') return quoted(value);
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');
  if (value && typeof value === 'object' && 'version' in value) return formatValue('version', value.version);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** `display_file_name` → "Display file name" for fields this client does not know yet. */
const labelOf = (field: string) => LABELS[field] ?? (field.charAt(0).toUpperCase() + field.slice(1)).replace(/_/g, ' ');

function metadataLines(change: FieldChange): ChangeLine[] {
  const before = (change.before ?? {}) as Record<string, unknown>;
  const after = (change.after ?? {}) as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const lines: ChangeLine[] = keys.map((key) => ({ label: `Metadata “${key}”`, before: formatValue('metadata', before[key]), after: formatValue('metadata', after[key]) }));
  if (change.omitted) lines.push({ label: 'Metadata', text: `and ${count(change.omitted, 'other key')} changed` });
  return lines;
}

/** The line under the sentence for each changed field, in the order the server gave them (none for what the sentence tells). */
export function describeChanges(entry: ActivityEntry, ctx: DescribeContext = {}): ChangeLine[] {
  const skip = new Set(IN_SENTENCE[entry.action] ?? []);
  const lines: ChangeLine[] = [];
  for (const [field, change] of Object.entries(entry.changes)) {
    if (skip.has(field)) continue;
    if (field === 'metadata') {
      lines.push(...metadataLines(change));
      continue;
    }
    const line: ChangeLine = { label: labelOf(field), before: formatValue(field, change.before, ctx), after: formatValue(field, change.after, ctx) };
    if (change.omitted) line.after = `${line.after} (and ${change.omitted} more)`;
    // Sizes a few bytes apart read the same ("3.3 KB → 3.3 KB"): a line that shows no change is left out.
    if (line.before !== line.after) lines.push(line);
  }
  return lines;
}

function listCount(change: FieldChange | undefined, side: 'before' | 'after'): number {
  const list = change?.[side];
  return (Array.isArray(list) ? list.length : 0) + (change?.omitted ?? 0);
}

/** The trash's entries count what went as changes.assets / folders / collections, each { before: n, after: 0 }. */
function trashCounts(entry: ActivityEntry): string {
  const n = (field: string) => Number(entry.changes[field]?.before ?? 0);
  const parts = (['asset', 'folder', 'collection'] as const).filter((kind) => n(`${kind}s`) > 0).map((kind) => count(n(`${kind}s`), kind));
  return parts.length ? ` (${parts.join(', ')})` : '';
}

/**
 * What was done, with `{subject}` where the subject's name goes (the page puts it there, in bold or
 * as a link): "edited {subject}", "restored v1 of {subject}", "added 3 assets to the collection {subject}".
 */
export function describeAction(entry: ActivityEntry): string {
  const { action, changes } = entry;
  const fields = Object.keys(changes);
  switch (action) {
    case 'asset.update':
      if (fields.length === 1 && fields[0] === 'display_file_name') return 'renamed {subject}';
      if (fields.length === 1 && fields[0] === 'tags') return 'changed the tags of {subject}';
      if (fields.length === 1 && fields[0] === 'visibility') return `made {subject} ${formatValue('visibility', changes.visibility?.after)}`;
      break;
    case 'folder.update':
    case 'collection.update':
      if (fields.length === 1 && fields[0] === 'name') return `renamed the ${action.split('.')[0]} {subject}`;
      break;
    case 'version.restore': {
      const from = changes.restored_from?.after;
      if (from && typeof from === 'object' && 'version' in from) return `restored ${String(from.version)} of {subject}`;
      break;
    }
    case 'collection.add_assets': {
      const n = listCount(changes.asset_ids, 'after');
      if (n) return `added ${count(n, 'asset')} to the collection {subject}`;
      break;
    }
    case 'collection.remove_assets': {
      const n = listCount(changes.asset_ids, 'before');
      if (n) return `removed ${count(n, 'asset')} from the collection {subject}`;
      break;
    }
    case 'member.add':
      if (changes.role?.after) return `added {subject} to the workspace as ${formatValue('role', changes.role.after)}`;
      break;
    case 'member.invite':
      if (changes.role?.after) return `invited {subject} as ${formatValue('role', changes.role.after)}`;
      break;
    case 'member.join':
      if (changes.role?.after) return `joined the workspace as ${formatValue('role', changes.role.after)}`;
      break;
    case 'workspace.empty_trash':
    case 'workspace.purge_trash':
      return TEMPLATES[action] + trashCounts(entry);
    default:
      break;
  }
  return TEMPLATES[action] ?? `${action} {subject}`;
}

/** describeAction split around the subject: [before, after] ("" when the sentence has no subject). */
export function splitSentence(entry: ActivityEntry): { pre: string; post: string; hasSubject: boolean } {
  const sentence = describeAction(entry);
  const at = sentence.indexOf('{subject}');
  if (at < 0) return { pre: sentence, post: '', hasSubject: false };
  return { pre: sentence.slice(0, at), post: sentence.slice(at + '{subject}'.length), hasSubject: true };
}
