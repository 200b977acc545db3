import { foldAscii } from './ascii-fold.js';
import type { FieldType } from './custom-fields.js';

/**
 * Bulk edits of custom fields (issue #30), the pure rules: what each operation makes of an item's current value. The
 * result is a value as PATCH custom_fields takes it (checked there like any other), or null to clear.
 *
 * - set: the value given; clear: nothing.
 * - add / remove: multi_select only; options by id, label or {id}; add keeps the current ones, remove drops the named.
 * - replace: the text types only; every occurrence of `find` (as written, case-sensitive) becomes `replace`.
 */
export const BULK_OPS = ['set', 'clear', 'add', 'remove', 'replace'] as const;
export type BulkOp = (typeof BULK_OPS)[number];

export interface BulkOperation {
  key: string;
  op: BulkOp;
  value?: unknown;
  find?: string;
  replace?: string;
}

/** A value as read: options as {id, label}, a user as {id, name}; see custom-values.ts. */
export type ReadValue = unknown;

const TEXT_TYPES: readonly FieldType[] = ['text', 'long_text', 'url', 'email'];

/** Why an operation does not fit a field of `type` (checked once, before any item); null when it does. */
export function operationProblem(type: FieldType, o: BulkOperation): string | null {
  switch (o.op) {
    case 'set':
      return o.value === undefined || o.value === null ? 'set needs a value (clear removes one)' : null;
    case 'clear':
      return o.value !== undefined ? 'clear takes no value' : null;
    case 'add':
    case 'remove':
      if (type !== 'multi_select') return `${o.op} applies to multi_select fields; ${o.key} is ${type} (use set or clear)`;
      return o.value === undefined || o.value === null ? `${o.op} needs one option or a list of options` : null;
    case 'replace':
      if (!TEXT_TYPES.includes(type)) return `replace applies to text fields; ${o.key} is ${type}`;
      return typeof o.find !== 'string' || o.find === '' || typeof o.replace !== 'string' ? 'replace needs find (not empty) and replace' : null;
  }
}

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : [v]);

/** The options of a multi_select's value as read, as {id}. */
const idsOf = (current: ReadValue): { id: number; label: string }[] =>
  Array.isArray(current) ? current.filter((o): o is { id: number; label: string } => typeof o === 'object' && o !== null && 'id' in o) : [];

/** Whether an option as given names this option (id, {id} or label, ASCII case folded). */
function names(given: unknown, option: { id: number; label: string }): boolean {
  if (typeof given === 'number') return given === option.id;
  if (typeof given === 'string') return foldAscii(given.trim()) === foldAscii(option.label);
  return typeof given === 'object' && given !== null && (given as { id?: unknown }).id === option.id;
}

/** The item's new value for the key, or undefined when the operation leaves it as it is (nothing to write). */
export function applyOperation(o: BulkOperation, current: ReadValue): unknown {
  switch (o.op) {
    case 'set':
      return o.value;
    case 'clear':
      return current === undefined ? undefined : null;
    case 'add': {
      const have = idsOf(current);
      const added = list(o.value).filter((v) => !have.some((h) => names(v, h)));
      return added.length ? [...have.map((h) => ({ id: h.id })), ...added] : undefined;
    }
    case 'remove': {
      const have = idsOf(current);
      const kept = have.filter((h) => !list(o.value).some((v) => names(v, h)));
      if (kept.length === have.length) return undefined;
      return kept.length ? kept.map((h) => ({ id: h.id })) : null;
    }
    case 'replace': {
      if (typeof current !== 'string') return undefined;
      const next = current.split(o.find!).join(o.replace);
      return next === current ? undefined : next;
    }
  }
}

/** A read value as PATCH takes it back (options and users as {id}); undefined stays undefined (no value). */
export function writable(current: ReadValue): unknown {
  if (current === undefined) return null;
  if (Array.isArray(current)) return current.map((o: { id: number }) => ({ id: o.id }));
  if (typeof current === 'object' && current !== null && 'id' in current) return { id: (current as { id: number }).id };
  return current;
}

