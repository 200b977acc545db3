/**
 * The name order of assets, folders and collections (issue #11): a key per
 * name whose plain binary order (SQLite's BINARY, PostgreSQL's COLLATE "C",
 * both UTF-8 byte order = code point order) is the natural, case-insensitive
 * order people expect from a file manager: img2 < img10 < IMG11, "a 2.png" <
 * "a 10.png". Computed here, once, in JS and stored (`name_key`), so both
 * databases sort by the same bytes and neither needs a collation or a
 * function of its own.
 *
 * The key's definition is part of the stored data: migration 0010 wrote it
 * for existing rows; a change here needs a migration that rewrites every key.
 */

/** Keys are cut after this many code points (at most 4 bytes each), far inside PostgreSQL's B-tree entry limit. */
export const MAX_SORT_KEY_LENGTH = 400;

/**
 * Case and accents folded: compatibility forms decomposed (fullwidth `Ａ１` is
 * `a1`, `ﬁ` is `fi`), nonspacing marks dropped (`É` sorts with `e`), then
 * upper- and lower-cased, which folds what lower-casing alone leaves apart
 * (`ß` and `ss`, `ς` and `σ`). Lone surrogates become U+FFFD, as the
 * databases would store them.
 */
export function foldName(name: string): string {
  // In a u-mode class, a surrogate that is half of a pair is not matched: only lone ones are.
  return name.replace(/[\uD800-\uDFFF]/gu, '\uFFFD').normalize('NFKD').replace(/\p{Mn}/gu, '').toUpperCase().toLowerCase();
}

/**
 * A run of ASCII digits as a string whose binary order is the numeric order:
 * leading zeros dropped, then prefixed by its length, itself prefixed by the
 * length of that (one digit: runs are shorter than 10^9 characters). `7` is
 * `117`, `10` is `1210`, `0042` is `1242`. Every encoded run starts with a
 * digit, as the run did, so its order against any other character is kept.
 */
function numberKey(run: string): string {
  const digits = run.replace(/^0+(?=\d)/, '');
  const length = String(digits.length);
  return `${length.length}${length}${digits}`;
}

/** The stored sort key of a display name (`name_key`). Equal keys (e.g. `a01` and `a1`) are ordered by id. */
export function sortKey(name: string): string {
  const key = foldName(name).replace(/[0-9]+/g, numberKey);
  // By code point, so a surrogate pair is never cut in two.
  const points = Array.from(key);
  return points.length > MAX_SORT_KEY_LENGTH ? points.slice(0, MAX_SORT_KEY_LENGTH).join('') : key;
}
