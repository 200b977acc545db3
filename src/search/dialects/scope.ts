/**
 * SQLite's FTS5 rows carry one scope token per document: U+E000, 'w', the
 * workspace id, 'k', the kind (e.g. "\uE000w12k1"; written by
 * index-schema/sqlite.ts, not queried at present). U+E000 is a private-use
 * character, which unicode61 counts as part of a word; query words never
 * contain it (text-query.ts removes it), so no query can match a scope token.
 */
export const SCOPE_MARK = '\uE000';
