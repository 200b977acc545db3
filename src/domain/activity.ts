import { isDeepStrictEqual } from 'node:util';

/**
 * What the activity log records (issue #11). An action is `<subject kind>.<verb>`; add new ones here, the API
 * schema (src/contracts/activity.ts) lists them from this array. `*.trash` moves to the trash, `*.restore`
 * brings back from it, `*.delete` deletes for good; `workspace.empty_trash` and `workspace.purge_trash` (housekeeping,
 * DAM_TRASH_DAYS) delete what the trash held, with how many of each kind went.
 */
export const ACTIVITY_ACTIONS = [
  'asset.upload',
  'asset.update',
  'asset.move',
  'asset.trash',
  'asset.restore',
  'asset.delete',
  'version.upload',
  'version.restore',
  'version.delete',
  'folder.create',
  'folder.update',
  'folder.move',
  'folder.trash',
  'folder.restore',
  'folder.delete',
  'collection.create',
  'collection.update',
  'collection.trash',
  'collection.restore',
  'collection.delete',
  'collection.add_assets',
  'collection.remove_assets',
  'member.add',
  'member.remove',
  'member.role',
  // issue #27: invitations (subject kind `invitation`, named by the e-mail) and joining through one (subject: the new member).
  'member.invite',
  'member.uninvite',
  'member.join',
  'workspace.rename',
  // issue #28: a workspace setting changed (changes names it: share_max_expiry_days).
  'workspace.settings',
  'workspace.empty_trash',
  'workspace.purge_trash',
  // issue #14: shared links (subject kind `share`); a revocation is `share.revoke`, links are never deleted.
  'share.create',
  'share.update',
  'share.revoke',
  // issue #30: custom field definitions (subject kind `field`, named by its label); options added, renamed, moved or
  // deprecated are field.update; values set on an asset, folder or collection are its own *.update (changes.custom_fields).
  'field.create',
  'field.update',
  'field.delete',
  'field.merge_options',
] as const;
export type ActivityAction = (typeof ACTIVITY_ACTIONS)[number];

export const SUBJECT_KINDS = ['asset', 'version', 'folder', 'collection', 'user', 'workspace', 'share', 'invitation', 'field'] as const;
export type SubjectKind = (typeof SUBJECT_KINDS)[number];

/**
 * The before/after of the fields a change touched, as the activity log stores them. Pure rules, no I/O.
 * Only changed fields are kept, and every value is capped so that an entry stays small whatever was edited:
 * - a value longer than VALUE_CHARS characters (strings as they are, anything else as JSON) is cut to that
 *   many characters and ends with '…', so a cut object or array becomes a string;
 * - metadata is compared key by key at the top level: `before` and `after` hold only the keys that changed
 *   (a key added is missing from `before`, a key removed from `after`), at most MAP_KEYS of them, in key
 *   order; `omitted` counts the changed keys left out;
 * - lists of ids (collection membership) keep their first LIST_ITEMS; `omitted` counts the rest.
 */
export const CHANGE_LIMITS = { valueChars: 256, mapKeys: 50, listItems: 100 } as const;

export interface FieldChange {
  before: unknown;
  after: unknown;
  /** Changed metadata keys or list items left out of before/after. */
  omitted?: number;
}
export type Changes = Record<string, FieldChange>;

export function capValue(value: unknown): unknown {
  if (value === undefined) return null;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text.length <= CHANGE_LIMITS.valueChars) return value;
  return `${text.slice(0, CHANGE_LIMITS.valueChars)}…`;
}

/** The listed fields whose values differ (deep equality: tags, metadata values), with capped values. */
export function diffFields<T extends object>(before: Partial<T> | null, after: Partial<T>, fields: readonly (keyof T & string)[]): Changes {
  const changes: Changes = {};
  for (const field of fields) {
    if (!(field in after)) continue;
    const old = before?.[field] ?? null;
    const now = after[field] ?? null;
    if (!isDeepStrictEqual(old, now)) changes[field] = { before: capValue(old), after: capValue(now) };
  }
  return changes;
}

/** The top-level keys of two JSON objects whose values differ; undefined when none did. */
export function diffMap(before: Record<string, unknown>, after: Record<string, unknown>): FieldChange | undefined {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])]
    .filter((k) => !isDeepStrictEqual(before[k], after[k]))
    .sort();
  if (keys.length === 0) return undefined;
  const kept = keys.slice(0, CHANGE_LIMITS.mapKeys);
  const side = (map: Record<string, unknown>) => Object.fromEntries(kept.filter((k) => k in map).map((k) => [k, capValue(map[k])]));
  const change: FieldChange = { before: side(before), after: side(after) };
  if (keys.length > kept.length) change.omitted = keys.length - kept.length;
  return change;
}

/** A list of ids that entered (after) or left (before) something, e.g. a collection's assets. */
export function listChange(ids: readonly number[], direction: 'added' | 'removed'): FieldChange {
  const kept = ids.slice(0, CHANGE_LIMITS.listItems);
  const change: FieldChange = direction === 'added' ? { before: null, after: kept } : { before: kept, after: null };
  if (ids.length > kept.length) change.omitted = ids.length - kept.length;
  return change;
}
