/**
 * Custom metadata (issue #30), the pure rules: the field types, what a key may be, and how a value sent by a client
 * becomes the stored columns (or a message naming what is wrong with it). No I/O: options and members are looked up by
 * the service and handed in.
 */
import { UNSAFE_MULTILINE, UNSAFE_TEXT } from './unsafe-text.js';

export const FIELD_TYPES = ['text', 'long_text', 'number', 'date', 'datetime', 'boolean', 'url', 'email', 'select', 'multi_select', 'user'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export const FIELD_TARGETS = ['assets', 'folders', 'collections'] as const;
export type FieldTarget = (typeof FIELD_TARGETS)[number];

/** `[a-z][a-z0-9_]{0,63}`: stable, unique in the workspace, never reused. */
export const FIELD_KEY_PATTERN = '^[a-z][a-z0-9_]{0,63}$';
const KEY = new RegExp(FIELD_KEY_PATTERN);
export const isFieldKey = (key: string): boolean => KEY.test(key);

export const VALUE_LIMITS = { text: 1000, long_text: 20_000, url: 2048, email: 254, multi: 100 } as const;

/** The stored form of one value: the column of its type (a multi_select has one per option). */
export interface StoredValue {
  text_value: string | null;
  num_value: number | null;
  option_id: number | null;
  user_id: number | null;
}

const stored = (v: Partial<StoredValue>): StoredValue => ({ text_value: null, num_value: null, option_id: null, user_id: null, ...v });

/** What a value check needs of the field. */
export interface FieldRule {
  type: FieldType;
  num_min: number | null;
  num_max: number | null;
  num_decimals: number | null;
}

/** An option as a value check sees it. */
export interface OptionRef {
  id: number;
  label: string;
  deprecated: boolean;
}

export interface ValueContext {
  /** The field's options (select, multi_select). */
  options: readonly OptionRef[];
  /** Options the target already has for this field: a deprecated one may stay, not be added. */
  current: ReadonlySet<number>;
  /** Is this user id a member of the workspace (type user). */
  isMember: (userId: number) => boolean;
}

/** A value that cannot be stored: the message names what is wrong (the caller adds the field). */
export class ValueProblem extends Error {}

const fail = (message: string): never => {
  throw new ValueProblem(message);
};

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** ISO 8601 with a time and an offset (Z or ±hh:mm); seconds and fractions optional. */
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
// A pragmatic e-mail check (one @, a dot in the domain, no spaces): the same as the account e-mails'.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DAY_SECONDS = 86_400;

/** A calendar date (YYYY-MM-DD, years 0001–9999) as its day number since 1970-01-01; null when it is not one. */
export function dayNumber(text: string): number | null {
  const m = DATE.exec(text);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 1 || mo < 1 || mo > 12 || d < 1) return null;
  const date = new Date(Date.UTC(2000, mo - 1, d));
  date.setUTCFullYear(y);
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return null;
  return Math.floor(date.getTime() / 1000 / DAY_SECONDS);
}

/** An ISO date-time with an offset as Unix seconds and its UTC form (YYYY-MM-DDTHH:MM:SSZ); null when it does not parse. */
export function parseDateTime(text: string): { seconds: number; utc: string } | null {
  if (!DATETIME.test(text)) return null;
  const ms = Date.parse(text);
  if (!Number.isFinite(ms)) return null;
  const date = new Date(ms);
  if (date.getUTCFullYear() < 1 || date.getUTCFullYear() > 9999) return null;
  // The date part must be a real day (Date.parse rolls 02-30 over).
  if (dayNumber(text.slice(0, 10)) === null) return null;
  return { seconds: Math.floor(ms / 1000), utc: `${date.toISOString().slice(0, 19)}Z` };
}

function isHttpUrl(text: string): boolean {
  if (!/^https?:\/\//i.test(text)) return false;
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** The text as it is kept: trimmed; blank means no value. */
function textOf(value: unknown, limit: number, what: string): string | null {
  if (typeof value !== 'string') return fail(`must be ${what}`);
  const text = value.trim();
  if (text === '') return null;
  if (text.length > limit) fail(`must be at most ${limit} characters`);
  // No control characters in a one-line value (long_text allows tabs and line breaks).
  if (limit !== VALUE_LIMITS.long_text && UNSAFE_TEXT.test(text)) fail('must be one line of text, without control or bidirectional-override characters');
  if (limit === VALUE_LIMITS.long_text && UNSAFE_MULTILINE.test(text)) fail('must not hold control characters (other than tabs and line breaks) or bidirectional overrides');
  return text;
}

function numberOf(value: unknown, rule: FieldRule): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fail('must be a number');
  if (rule.num_min !== null && value < rule.num_min) fail(`must be at least ${rule.num_min}`);
  if (rule.num_max !== null && value > rule.num_max) fail(`must be at most ${rule.num_max}`);
  const decimals = rule.num_decimals ?? 0;
  const scaled = value * 10 ** decimals;
  if (Math.abs(scaled - Math.round(scaled)) > 1e-9 * Math.max(1, Math.abs(scaled))) {
    fail(decimals === 0 ? 'must be a whole number' : `must have at most ${decimals} decimal places`);
  }
  return value;
}

/** An option named by its id, its label (case-insensitive), or `{id}` as a read answers it. */
function optionOf(value: unknown, ctx: ValueContext): number {
  let found: OptionRef | undefined;
  if (typeof value === 'number' && Number.isInteger(value)) found = ctx.options.find((o) => o.id === value);
  else if (typeof value === 'string') {
    const label = value.trim().toLowerCase();
    const matches = ctx.options.filter((o) => o.label.toLowerCase() === label);
    if (matches.length > 1) fail(`"${value}" is the label of several options; send the option's id`);
    found = matches[0];
  } else if (typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'number') {
    return optionOf((value as { id: number }).id, ctx);
  } else return fail("must be an option's id or label");
  if (!found) return fail(`${JSON.stringify(value)} is not an option of this field`);
  if (found.deprecated && !ctx.current.has(found.id)) fail(`the option "${found.label}" is deprecated and can no longer be chosen`);
  return found.id;
}

/**
 * A value as sent (PATCH custom_fields) to the rows that store it; [] clears the field. Throws ValueProblem with
 * what is wrong. `null` and blank text clear.
 */
export function storedValues(rule: FieldRule, value: unknown, ctx: ValueContext): StoredValue[] {
  if (value === null) return [];
  switch (rule.type) {
    case 'text':
    case 'long_text': {
      const text = textOf(value, VALUE_LIMITS[rule.type], 'text');
      return text === null ? [] : [stored({ text_value: text })];
    }
    case 'url': {
      const text = textOf(value, VALUE_LIMITS.url, 'a URL');
      if (text !== null && !isHttpUrl(text)) fail('must be an http or https URL');
      return text === null ? [] : [stored({ text_value: text })];
    }
    case 'email': {
      const text = textOf(value, VALUE_LIMITS.email, 'an e-mail address');
      if (text !== null && !EMAIL.test(text)) fail('must be an e-mail address');
      return text === null ? [] : [stored({ text_value: text.toLowerCase() })];
    }
    case 'number':
      return [stored({ num_value: numberOf(value, rule) })];
    case 'boolean':
      if (typeof value !== 'boolean') fail('must be true or false');
      return [stored({ num_value: value ? 1 : 0 })];
    case 'date': {
      const text = textOf(value, 10, 'a date (YYYY-MM-DD)');
      if (text === null) return [];
      const day = dayNumber(text);
      if (day === null) fail(`"${text}" is not a date (YYYY-MM-DD)`);
      return [stored({ text_value: text, num_value: day })];
    }
    case 'datetime': {
      const text = textOf(value, 40, 'a date and time (ISO 8601 with an offset)');
      if (text === null) return [];
      const parsed = parseDateTime(text);
      if (!parsed) return fail(`"${text}" is not a date and time in ISO 8601 with an offset (2026-03-01T14:30:00Z)`);
      return [stored({ text_value: parsed.utc, num_value: parsed.seconds })];
    }
    case 'select':
      return [stored({ option_id: optionOf(value, ctx) })];
    case 'multi_select': {
      if (!Array.isArray(value)) return fail("must be a list of options (ids or labels)");
      if (value.length > VALUE_LIMITS.multi) fail(`must hold at most ${VALUE_LIMITS.multi} options`);
      const ids = [...new Set(value.map((v) => optionOf(v, ctx)))];
      return ids.map((id) => stored({ option_id: id }));
    }
    case 'user': {
      const id = typeof value === 'object' && value !== null ? (value as { id?: unknown }).id : value;
      if (typeof id !== 'number' || !Number.isInteger(id) || id < 1) return fail("must be a user's id");
      if (!ctx.isMember(id)) fail(`user ${id} is not a member of this workspace`);
      return [stored({ user_id: id })];
    }
  }
}

/**
 * Whether a stored value converts to another type (PATCH of a field's type): the text kinds into each other when the
 * text fits the new kind, numbers and booleans into text, a date into a datetime (midnight UTC) and back only at
 * midnight, select into multi_select (and back when one option); nothing else.
 */
export function convertValue(from: FieldType, to: FieldType, v: StoredValue, rule: FieldRule): StoredValue | null {
  const text = v.text_value;
  const asText = (t: string | null): StoredValue | null => {
    if (t === null) return null;
    try {
      const out = storedValues({ ...rule, type: to }, t, { options: [], current: new Set(), isMember: () => false });
      return out[0] ?? null;
    } catch {
      return null;
    }
  };
  if (from === to) return v;
  switch (from) {
    case 'text':
    case 'long_text':
    case 'url':
    case 'email':
      if (to === 'text' || to === 'long_text' || to === 'url' || to === 'email' || to === 'date' || to === 'datetime') return asText(text);
      if (to === 'number') {
        const n = text === null || text.trim() === '' ? NaN : Number(text);
        try {
          return Number.isFinite(n) ? [stored({ num_value: numberOf(n, rule) })][0]! : null;
        } catch {
          return null;
        }
      }
      return null;
    case 'number':
      if (to === 'text' || to === 'long_text') return stored({ text_value: String(v.num_value) });
      return null;
    case 'boolean':
      if (to === 'text' || to === 'long_text') return stored({ text_value: v.num_value ? 'true' : 'false' });
      return null;
    case 'date':
      if (to === 'text' || to === 'long_text') return stored({ text_value: text });
      if (to === 'datetime' && v.num_value !== null) return stored({ text_value: `${text}T00:00:00Z`, num_value: v.num_value * DAY_SECONDS });
      return null;
    case 'datetime':
      if (to === 'text' || to === 'long_text') return stored({ text_value: text });
      if (to === 'date' && v.num_value !== null && v.num_value % DAY_SECONDS === 0 && text) {
        return stored({ text_value: text.slice(0, 10), num_value: v.num_value / DAY_SECONDS });
      }
      return null;
    case 'select':
      return to === 'multi_select' ? v : null;
    case 'multi_select':
      return to === 'select' ? v : null;
    case 'user':
      return null;
  }
}

/** Types whose values are options of the field's vocabulary. */
export const hasOptions = (type: FieldType): boolean => type === 'select' || type === 'multi_select';
