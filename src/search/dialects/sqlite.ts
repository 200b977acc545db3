import { sql } from 'kysely';
import type { RequiredWords } from '../filter/pushdown.js';
import type { Term } from '../typos/candidates.js';
import type { TextMatch, TextSearchDialect, TypoMatch } from './types.js';

/** An FTS5 string: double quotes doubled, so the word is never read as FTS5 syntax (AND, NEAR, column filters). */
const quoted = (word: string): string => `"${word.replace(/"/g, '""')}"`;

/**
 * Dictionary words read per query word at most: those of the right length in the caller's workspaces, in length and
 * byte order. Beyond it (a workspace with that many distinct words of one length) later words are not candidates.
 */
const MAX_SCANNED_TERMS = 50_000;

/**
 * SQLite: the FTS5 table search_fts (columns name, extra, scope), rowid =
 * doc_id. The match drives the query (CROSS JOIN keeps it the outer loop) and
 * each match is looked up in the narrow search_documents, where the workspace,
 * kind and filter are checked. The relevance tiers are two more FTS5 queries
 * on the name column (three with typo candidates: the exact words decide tier 2).
 *
 * The scope column (one token per document: workspace and kind) is written
 * but not queried: intersecting a match with a large workspace's token costs
 * more than looking the matches up in search_documents.
 */
export const sqliteText: TextSearchDialect = { textMatch, nearTerms };

function textMatch(words: readonly string[], required: RequiredWords, typos?: TypoMatch): TextMatch {
  const alternatives = typos?.alternatives ?? [];
  const last = words.length - 1;
  const exact = (w: string, i: number) => `${quoted(w)}${i === last ? '*' : ''}`;
  const typed = words.map(exact);
  // A typo candidate is a whole word of the dictionary: matched as a word, not as a prefix.
  const forgiving = words.map((w, i) => (alternatives[i]?.length ? `(${[exact(w, i), ...alternatives[i].map(quoted)].join(' OR ')})` : exact(w, i)));
  const implied = required.map((alternatives) => `(${alternatives.map((ws) => `(${ws.map(quoted).join(' AND ')})`).join(' OR ')})`);
  const all = [...forgiving, ...implied].join(' AND ');
  const inName = `name : (${typed.join(' AND ')})`;
  const nameStarts = `name : ^${quoted(words.join(' '))}*`;
  const widened = forgiving.some((f, i) => f !== typed[i]);
  const tier = (query: string) => sql`f.rowid IN (SELECT rowid FROM search_fts WHERE search_fts MATCH ${query})`;
  return {
    from: sql`search_fts f CROSS JOIN search_documents d ON d.doc_id = f.rowid`,
    where: sql`f.search_fts MATCH ${all}`,
    relevance: widened && !typos?.typedFound ? sql<number>`3` : sql<number>`CASE
      WHEN ${tier(nameStarts)} THEN 0
      WHEN ${tier(inName)} THEN 1
      ${widened ? sql`WHEN ${tier(typed.join(' AND '))} THEN 2 ELSE 3` : sql`ELSE 2`} END`,
  };
}

/** The dictionary words of the caller's workspaces whose length is within `typos` of the word's (search_terms_length). */
function nearTerms(workspaceIds: readonly number[], word: string, typos: number) {
  const length = [...word].length;
  return sql<Term>`SELECT term, docs FROM search_terms WHERE workspace_id IN (${sql.join(workspaceIds)})
    AND len BETWEEN ${length - typos} AND ${length + typos} LIMIT ${MAX_SCANNED_TERMS}`;
}
