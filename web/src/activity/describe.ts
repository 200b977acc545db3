import type { ActivityAction, ActivityEntry, FieldChange } from '../api/types';
import { currentLocale, translate } from '../i18n';
import en from '../i18n/messages/en';
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

type ActionMessages = typeof en.activity.actions;
/** "asset.upload", … : the actions the catalogue has a sentence for. */
type KnownAction = { [G in keyof ActionMessages]: `${G & string}.${keyof ActionMessages[G] & string}` }[keyof ActionMessages];
/** Fails to compile when the server has an action the catalogue lacks. */
export const EVERY_ACTION_HAS_A_SENTENCE: ActivityAction extends KnownAction ? true : never = true;

const FIELDS = en.activity.fields as Record<string, string>;

const SUBJECT = '{subject}';

/** The sentence with `{subject}` left in place, for splitSentence. */
const say = (key: string, params: Record<string, unknown> = {}, plural?: number): string =>
  plural === undefined ? translate(key, { subject: SUBJECT, ...params }) : translate(key, { subject: SUBJECT, ...params }, plural);

function hasSentence(action: string): boolean {
  const [group, verb] = action.split('.');
  const messages = (en.activity.actions as Record<string, Record<string, string> | undefined>)[group ?? ''];
  return messages !== undefined && verb !== undefined && Object.hasOwn(messages, verb);
}

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
const quoted = (v: unknown) => translate('activity.values.quoted', { value: String(v) });
const word = (key: keyof typeof en.activity.values) => translate(`activity.values.${key}`);
const ROLES = new Set(['viewer', 'manager', 'admin']);
/** "viewer", "manager" in the page's language (other values as they are). */
const roleWord = (role: unknown) => (typeof role === 'string' && ROLES.has(role) ? translate(`activity.roles.${role}`) : String(role));

/** A value as the user reads it; `none` (or what the field calls nothing) when there is none. */
export function formatValue(field: string, value: unknown, ctx: DescribeContext = {}): string {
  // A shared link's settings (share.update), where null and false have a meaning of their own.
  if (field === 'expires_at') return typeof value === 'number' ? formatDate(value) : word('never');
  if (field === 'has_password') return value ? word('set') : word('none');
  if (field === 'allow_download') return value ? word('allowed') : word('notAllowed');
  if (field === 'max_downloads') return typeof value === 'number' ? String(value) : word('noLimit');
  if (field === 'folder_id' || field === 'parent_id') {
    if (isEmpty(value)) return word('topLevel');
    const id = Number(value);
    const name = ctx.folderName?.(id);
    return name ? quoted(name) : translate('activity.values.folderId', { id });
  }
  if (isEmpty(value)) return word('none');
  if (field === 'visibility') return Number(value) === 0 ? word('public') : word('private');
  if (field === 'role') return roleWord(value);
  if (field === 'file_size' && typeof value === 'number') return formatBytes(value);
  if (field === 'display_file_name' || field === 'name' || field === 'file_name') return quoted(value);
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');
  if (value && typeof value === 'object' && 'version' in value) return formatValue('version', value.version);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** `display_file_name` → "Display file name" for fields this client does not know yet. */
const labelOf = (field: string) => (Object.hasOwn(FIELDS, field) ? translate(`activity.fields.${field}`) : (field.charAt(0).toUpperCase() + field.slice(1)).replace(/_/g, ' '));

function metadataLines(change: FieldChange): ChangeLine[] {
  const before = (change.before ?? {}) as Record<string, unknown>;
  const after = (change.after ?? {}) as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const lines: ChangeLine[] = keys.map((key) => ({ label: translate('activity.metadataKey', { key }), before: formatValue('metadata', before[key]), after: formatValue('metadata', after[key]) }));
  if (change.omitted) lines.push({ label: translate('activity.fields.metadata'), text: translate('activity.otherKeys', { n: change.omitted }, change.omitted) });
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
    if (change.omitted) line.after = translate('activity.andMore', { value: line.after, n: change.omitted }, change.omitted);
    // Sizes a few bytes apart read the same ("3.3 KB → 3.3 KB"): a line that shows no change is left out.
    if (line.before !== line.after) lines.push(line);
  }
  return lines;
}

function listCount(change: FieldChange | undefined, side: 'before' | 'after'): number {
  const list = change?.[side];
  return (Array.isArray(list) ? list.length : 0) + (change?.omitted ?? 0);
}

/** The trash's entries count what went as changes.assets / folders / collections, each { before: n, after: 0 }: "3 assets, 1 folder". */
function trashCounts(entry: ActivityEntry): string | null {
  const n = (field: string) => Number(entry.changes[field]?.before ?? 0);
  const parts = (['asset', 'folder', 'collection'] as const).filter((kind) => n(`${kind}s`) > 0).map((kind) => translate(`activity.counts.${kind}`, { n: n(`${kind}s`) }, n(`${kind}s`)));
  return parts.length ? new Intl.ListFormat(currentLocale(), { type: 'unit', style: 'short' }).format(parts) : null;
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
      if (fields.length === 1 && fields[0] === 'display_file_name') return say('activity.detail.renamed');
      if (fields.length === 1 && fields[0] === 'tags') return say('activity.detail.retagged');
      if (fields.length === 1 && fields[0] === 'visibility') return say(Number(changes.visibility?.after) === 0 ? 'activity.detail.madePublic' : 'activity.detail.madePrivate');
      break;
    case 'folder.update':
      if (fields.length === 1 && fields[0] === 'name') return say('activity.detail.renamedFolder');
      break;
    case 'collection.update':
      if (fields.length === 1 && fields[0] === 'name') return say('activity.detail.renamedCollection');
      break;
    case 'version.restore': {
      const from = changes.restored_from?.after;
      if (from && typeof from === 'object' && 'version' in from) return say('activity.detail.restoredVersion', { version: String(from.version) });
      break;
    }
    case 'collection.add_assets': {
      const n = listCount(changes.asset_ids, 'after');
      if (n) return say('activity.detail.addedAssets', { n }, n);
      break;
    }
    case 'collection.remove_assets': {
      const n = listCount(changes.asset_ids, 'before');
      if (n) return say('activity.detail.removedAssets', { n }, n);
      break;
    }
    case 'member.add':
      if (changes.role?.after) return say('activity.detail.addedAs', { role: roleWord(changes.role.after) });
      break;
    case 'member.invite':
      if (changes.role?.after) return say('activity.detail.invitedAs', { role: roleWord(changes.role.after) });
      break;
    case 'member.join':
      if (changes.role?.after) return say('activity.detail.joinedAs', { role: roleWord(changes.role.after) });
      break;
    case 'workspace.empty_trash':
    case 'workspace.purge_trash': {
      const counts = trashCounts(entry);
      if (counts) return say(action === 'workspace.empty_trash' ? 'activity.detail.emptiedTrash' : 'activity.detail.purgedTrash', { counts });
      break;
    }
    default:
      break;
  }
  return hasSentence(action) ? say(`activity.actions.${action}`) : `${action} {subject}`;
}

/** describeAction split around the subject: [before, after] ("" when the sentence has no subject). */
export function splitSentence(entry: ActivityEntry): { pre: string; post: string; hasSubject: boolean } {
  const sentence = describeAction(entry);
  const at = sentence.indexOf('{subject}');
  if (at < 0) return { pre: sentence, post: '', hasSubject: false };
  return { pre: sentence.slice(0, at), post: sentence.slice(at + '{subject}'.length), hasSubject: true };
}
