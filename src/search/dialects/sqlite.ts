import { sql } from 'kysely';
import { scopeToken } from './scope.js';
import type { TextMatch, TextScope, TextSearchDialect } from './types.js';

/** An FTS5 string: double quotes doubled, so the word is never read as FTS5 syntax (AND, NEAR, column filters). */
const quoted = (word: string): string => `"${word.replace(/"/g, '""')}"`;

/**
 * SQLite: the FTS5 table search_fts (columns name, extra, scope), rowid =
 * doc_id. The match drives the query (CROSS JOIN keeps it the outer loop) and
 * each match is looked up in the narrow search_documents, where the workspace,
 * kind and filter are checked. The relevance tiers are two more FTS5 queries
 * on the name column.
 *
 * Counting without a filter picks its plan in one statement: a match of at
 * most 20,000 documents is counted by lookups (a few ms); a larger one inside
 * FTS5 by intersecting with the caller's scope tokens, which costs about
 * 15 ms for the scope's doclist but no lookup per match (300,000 matches:
 * 60 ms instead of 200).
 */
export function sqliteTextSearch(lookupCountLimit = 20_000): TextSearchDialect {
  return { textMatch: (words, scope) => textMatch(words, scope, lookupCountLimit) };
}

export const sqliteText = sqliteTextSearch();

function textMatch(words: readonly string[], scope: TextScope, lookupCountLimit: number): TextMatch {
  const last = words.length - 1;
  const implied = scope.required.map((alternatives) => `(${alternatives.map((ws) => `(${ws.map(quoted).join(' AND ')})`).join(' OR ')})`);
  const all = [...words.map((w, i) => `${quoted(w)}${i === last ? '*' : ''}`), ...implied].join(' AND ');
  const inScope = `scope : (${scope.workspaceIds.map((ws) => quoted(scopeToken(ws, scope.kind))).join(' OR ')})`;
  const inName = `name : (${words.map((w, i) => `${quoted(w)}${i === last ? '*' : ''}`).join(' AND ')})`;
  const nameStarts = `name : ^${quoted(words.join(' '))}*`;
  const ws = scope.workspaceIds;
  const inWorkspaces = ws.length === 1 ? sql`d.workspace_id = ${ws[0]}` : sql`d.workspace_id IN (${sql.join(ws)})`;
  return {
    from: sql`search_fts f CROSS JOIN search_documents d ON d.doc_id = f.rowid`,
    where: sql`f.search_fts MATCH ${all}`,
    relevance: sql<number>`CASE
      WHEN f.rowid IN (SELECT rowid FROM search_fts WHERE search_fts MATCH ${nameStarts}) THEN 0
      WHEN f.rowid IN (SELECT rowid FROM search_fts WHERE search_fts MATCH ${inName}) THEN 1
      ELSE 2 END`,
    count: sql<{ n: number }>`SELECT CASE
      WHEN (SELECT count(*) FROM (SELECT 1 FROM search_fts WHERE search_fts MATCH ${all} LIMIT ${lookupCountLimit + 1})) <= ${lookupCountLimit}
      THEN (SELECT count(*) FROM search_fts f CROSS JOIN search_documents d ON d.doc_id = f.rowid
            WHERE f.search_fts MATCH ${all} AND d.kind = ${scope.kind} AND ${inWorkspaces})
      ELSE (SELECT count(*) FROM search_fts WHERE search_fts MATCH ${`${inScope} AND ${all}`})
      END AS n`,
  };
}
