/**
 * The shape of one environment variable's declaration (issue #29): what start-up validation reads and
 * what docs/configuration.md and `--help-config` print come from the same object, so they cannot drift.
 *
 * A small typed table rather than TypeBox schemas: a variable is one string in, one typed value out,
 * and the interesting part is the error message naming the variable (which ajv/TypeBox errors do not
 * phrase) and the cross-field rules in load.ts. Each constructor below fills in the documentation
 * facts (type, range, default) from the same numbers it validates with.
 */

export class ConfigError extends Error {}

export type Env = Record<string, string | undefined>;

/** How the docs name a variable's type; `integer` may carry a unit. */
export type VarType = 'integer' | 'boolean' | 'enum' | 'string' | 'url' | 'list' | 'path';

export type Unit = 'seconds' | 'milliseconds' | 'days' | 'bytes';

/** What every declaration says about itself, in Markdown (rendered to plain text for a terminal). */
export interface VarDoc {
  /** The section of docs/configuration.md (an id of SECTIONS in vars.ts). */
  readonly section: string;
  readonly type: VarType;
  readonly unit: Unit | undefined;
  /** The values accepted, as a phrase: `0 to 65535`, "`all`, `api` or `worker`", a format. */
  readonly range: string | undefined;
  /** The default exactly as it would be written in the environment; undefined when unset or computed. */
  readonly default: string | undefined;
  /** The default in words, shown instead of `default`: a computed one, or what unset means. */
  readonly defaultNote: string | undefined;
  readonly description: string;
  /** Carries a credential: never logged, answered or echoed in an error message. */
  readonly secret: boolean;
  /** Read only when this variable is set (`NAME`) or has this value (`NAME=value`); ignored otherwise. */
  readonly onlyWith: string | undefined;
}

/** One variable: its documentation and its parser. Unset, or only whitespace, means `default` (or undefined without one). */
export interface Var<T> extends VarDoc {
  readonly parse: (raw: string, name: string) => T;
}

/** A declaration whose variable always has a value: it has a default. */
export type VarWithDefault<T> = Var<T> & { readonly default: string };

/** The value loading a declaration gives: T, or T | undefined when it has no default. */
export type ValueOf<V> = V extends VarWithDefault<infer T> ? T : V extends Var<infer T> ? T | undefined : never;

interface Common {
  readonly section: string;
  readonly description: string;
  readonly secret?: boolean;
  readonly onlyWith?: string;
  readonly defaultNote?: string;
}

function doc(spec: Common, type: VarType): Omit<VarDoc, 'range' | 'default' | 'unit'> {
  return {
    section: spec.section,
    type,
    description: spec.description,
    secret: spec.secret ?? false,
    onlyWith: spec.onlyWith,
    defaultNote: spec.defaultNote,
  };
}

/** `a`, `a or b`, `a, b or c`. */
function orList(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

const UNITS: Partial<Record<Unit, readonly (readonly [number, string])[]>> = {
  seconds: [
    [24 * 3600, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
  ],
  bytes: [
    [1024 ** 3, 'GiB'],
    [1024 ** 2, 'MiB'],
    [1024, 'KiB'],
  ],
};

/** `604800` seconds as `7 days`, `5242880` bytes as `5 MiB`; undefined when no larger unit divides it. */
export function inWords(value: number, unit: Unit | undefined): string | undefined {
  for (const [size, word] of (unit && UNITS[unit]) || []) {
    if (value >= size && value % size === 0) {
      const count = value / size;
      return unit === 'bytes' ? `${count} ${word}` : `${count} ${word}${count === 1 ? '' : 's'}`;
    }
  }
  return undefined;
}

/** `604800 (7 days)`, `60`. */
function withWords(value: number, unit: Unit | undefined): string {
  const words = inWords(value, unit);
  return words ? `${value} (${words})` : String(value);
}

export function integer(spec: Common & { readonly default: number; readonly min: number; readonly max?: number; readonly unit?: Unit }): VarWithDefault<number> {
  const { min, max, unit } = spec;
  return {
    ...doc(spec, 'integer'),
    unit,
    range: max === undefined ? `at least ${withWords(min, unit)}` : `${withWords(min, unit)} to ${withWords(max, unit)}`,
    default: String(spec.default),
    parse: (raw, name) => {
      const value = Number(raw);
      if (!Number.isInteger(value) || value < min || value > (max ?? Number.MAX_SAFE_INTEGER)) {
        throw new ConfigError(`${name} must be an integer ${max === undefined ? `>= ${min}` : `between ${min} and ${max}`}, got "${raw}"`);
      }
      return value;
    },
  };
}

const TRUE = ['1', 'true', 'yes'];
const FALSE = ['0', 'false', 'no'];

export function boolean(spec: Common & { readonly default: boolean }): VarWithDefault<boolean> {
  return {
    ...doc(spec, 'boolean'),
    unit: undefined,
    range: '`true` or `false`',
    default: String(spec.default),
    parse: (raw, name) => {
      if (TRUE.includes(raw.toLowerCase())) return true;
      if (FALSE.includes(raw.toLowerCase())) return false;
      throw new ConfigError(`${name} must be true or false, got "${raw}"`);
    },
  };
}

export function oneOf<const T extends string>(spec: Common & { readonly values: readonly T[]; readonly default: T }): VarWithDefault<T> {
  const { values } = spec;
  return {
    ...doc(spec, 'enum'),
    unit: undefined,
    range: orList(values.map((v) => `\`${v}\``)),
    default: spec.default,
    parse: (raw, name) => {
      if (!(values as readonly string[]).includes(raw)) throw new ConfigError(`${name} must be ${orList(values)}, got "${raw}"`);
      return raw as T;
    },
  };
}

interface TextSpec<T> extends Common {
  readonly type?: 'string' | 'url' | 'list' | 'path';
  /** The accepted form, for the docs (a parser's rule in words). */
  readonly format?: string;
  readonly parse?: (raw: string, name: string) => T;
}

/** Free text, or (with `parse`) any format of its own: a list, a URL, a path. Without `parse` the value is taken as it is. */
// NoInfer: T comes from `parse` (string without one), never from the table's `Var<unknown>` context.
export function text<T = string>(spec: TextSpec<T> & { readonly default: string }): VarWithDefault<NoInfer<T>>;
export function text<T = string>(spec: TextSpec<T> & { readonly default?: string }): Var<NoInfer<T>>;
export function text<T = string>(spec: TextSpec<T> & { readonly default?: string }): Var<T> {
  return {
    ...doc(spec, spec.type ?? 'string'),
    unit: undefined,
    range: spec.format,
    default: spec.default,
    parse: spec.parse ?? ((raw) => raw as T),
  };
}

/** An http(s) URL; with `trimSlash`, kept without its trailing slashes (paths are appended to it). */
type HttpUrlSpec = Common & { readonly trimSlash?: boolean };
export function httpUrl(spec: HttpUrlSpec & { readonly default: string }): VarWithDefault<string>;
export function httpUrl(spec: HttpUrlSpec & { readonly default?: undefined }): Var<string>;
export function httpUrl(spec: HttpUrlSpec & { readonly default?: string }): Var<string> {
  return text({
    ...spec,
    type: 'url',
    format: 'an `http://` or `https://` URL',
    parse: (raw, name) => {
      const value = spec.trimSlash ? raw.replace(/\/+$/, '') : raw;
      if (!/^https?:\/\//.test(value)) throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
      return value;
    },
  });
}

/** A base URL: http(s), no credentials, query or fragment; kept without its trailing slashes so paths are appended to it. */
export function baseUrl(spec: Common & { readonly default: string; readonly format?: string }): VarWithDefault<string> {
  return text({
    ...spec,
    type: 'url',
    format: spec.format ?? 'an http(s) base URL: scheme, host, port, optional path; no credentials, query or fragment',
    parse: (raw, name) => {
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        throw new ConfigError(`${name} must be an http(s) base URL, got "${raw}"`);
      }
      if (!/^https?:$/.test(url.protocol) || url.username || url.password || url.search || url.hash) {
        throw new ConfigError(`${name} must be an http(s) base URL (scheme, host, port, optional path; no query), got "${raw}"`);
      }
      return raw.replace(/\/+$/, '');
    },
  });
}

/** Unset or only whitespace: the declaration's default applies. */
function isUnset(raw: string | undefined): raw is undefined {
  return raw === undefined || raw.trim() === '';
}

/** The value of `name` in `env` through its declaration: the default when unset, undefined when it has none. */
export function readVar<T>(env: Env, name: string, decl: Var<T>): T | undefined {
  const given = env[name];
  const raw = isUnset(given) ? decl.default : given;
  return raw === undefined ? undefined : decl.parse(raw, name);
}
