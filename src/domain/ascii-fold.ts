/**
 * Strings compare with ASCII letters folded to lower case, on both dialects (SQLite's lower() folds ASCII only, so
 * PostgreSQL does the same): the search index's `*_folded` columns and custom text values are kept so.
 */
export function foldAscii(s: string): string {
  return s.replace(/[A-Z]/g, (c) => c.toLowerCase());
}
