import { sql } from 'kysely';
import type { RequiredWords } from '../filter/pushdown.js';
import type { TextMatch, TextSearchDialect } from './types.js';

/** An FTS5 string: double quotes doubled, so the word is never read as FTS5 syntax (AND, NEAR, column filters). */
const quoted = (word: string): string => `"${word.replace(/"/g, '""')}"`;

/**
 * SQLite: the FTS5 table search_fts (columns name, extra, scope), rowid =
 * doc_id. The match drives the query (CROSS JOIN keeps it the outer loop) and
 * each match is looked up in the narrow search_documents, where the workspace,
 * kind and filter are checked. The relevance tiers are two more FTS5 queries
 * on the name column.
 *
 * The scope column (one token per document: workspace and kind) is written
 * but not queried: intersecting a match with a large workspace's token costs
 * more than looking the matches up in search_documents.
 */
export const sqliteText: TextSearchDialect = { textMatch };

function textMatch(words: readonly string[], required: RequiredWords): TextMatch {
  const last = words.length - 1;
  const implied = required.map((alternatives) => `(${alternatives.map((ws) => `(${ws.map(quoted).join(' AND ')})`).join(' OR ')})`);
  const all = [...words.map((w, i) => `${quoted(w)}${i === last ? '*' : ''}`), ...implied].join(' AND ');
  const inName = `name : (${words.map((w, i) => `${quoted(w)}${i === last ? '*' : ''}`).join(' AND ')})`;
  const nameStarts = `name : ^${quoted(words.join(' '))}*`;
  return {
    from: sql`search_fts f CROSS JOIN search_documents d ON d.doc_id = f.rowid`,
    where: sql`f.search_fts MATCH ${all}`,
    relevance: sql<number>`CASE
      WHEN f.rowid IN (SELECT rowid FROM search_fts WHERE search_fts MATCH ${nameStarts}) THEN 0
      WHEN f.rowid IN (SELECT rowid FROM search_fts WHERE search_fts MATCH ${inName}) THEN 1
      ELSE 2 END`,
  };
}
