/**
 * SQLite's FTS5 rows carry one scope token per document: U+E000, 'w', the
 * workspace id, 'k', the kind (e.g. "\uE000w12k1"). U+E000 is a private-use
 * character, which unicode61 counts as part of a word; query words never
 * contain it (text-query.ts removes it), so only the service can ask for a scope.
 */
export const SCOPE_MARK = '\uE000';

export function scopeToken(workspaceId: number, kind: number): string {
  return `${SCOPE_MARK}w${workspaceId}k${kind}`;
}
