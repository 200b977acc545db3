import { sql, type SqlBool } from 'kysely';
import type { Term } from '../typos/candidates.js';
import type { TextMatch, TextSearchDialect } from './types.js';

/** A tsquery lexeme in quotes, taken verbatim by the ::tsquery cast (no parser, no dictionary). */
const lexeme = (word: string): string => `'${word.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
const likeEscaped = (word: string): string => word.replace(/[\\%_]/g, '\\$&');

/**
 * Dictionary words read per query word: the nearest by trigram distance (pg_trgm's GiST index on search_terms reads
 * them in that order). Words within two edits share most trigrams with the query word, so they come first; a
 * dictionary with more than this many closer words of the right length loses the rest.
 */
const NEAREST_TERMS = 64;

/**
 * PostgreSQL: the GIN-indexed tsvector search_documents.search_vector. Both
 * the lexemes and the query are lower-cased by PostgreSQL's lower(), as the
 * trigger did. The relevance tiers test name_norm (' word word ... '), and
 * with typo candidates the exact tsquery (tier 2, else 3).
 */
export const postgresText: TextSearchDialect = {
  textMatch(words, required, typos): TextMatch {
    const alternatives = typos?.alternatives ?? [];
    const last = words.length - 1;
    const exact = (w: string, i: number) => `${lexeme(w)}${i === last ? ':*' : ''}`;
    const typed = words.map(exact);
    const forgiving = words.map((w, i) => (alternatives[i]?.length ? `(${[exact(w, i), ...alternatives[i].map(lexeme)].join(' | ')})` : exact(w, i)));
    // Words the filter implies (tags it requires) narrow the GIN match before the heap is read.
    const implied = required.map((alternatives) => `(${alternatives.map((ws) => `(${ws.map(lexeme).join(' & ')})`).join(' | ')})`);
    const query = [...forgiving, ...implied].join(' & ');
    const starts = ` ${words.map(likeEscaped).join(' ')}%`;
    const inName = words.map((w, i) => sql<SqlBool>`d.name_norm LIKE lower(${`% ${likeEscaped(w)}${i === last ? '' : ' '}%`}) ESCAPE '\\'`);
    const widened = forgiving.some((f, i) => f !== typed[i]);
    return {
      from: sql`search_documents d`,
      where: sql`d.search_vector @@ lower(${query})::tsquery`,
      relevance: widened && !typos?.typedFound ? sql<number>`3` : sql<number>`CASE
        WHEN d.name_norm LIKE lower(${starts}) ESCAPE '\\' THEN 0
        WHEN ${sql.join(inName, sql` AND `)} THEN 1
        ${widened ? sql`WHEN d.search_vector @@ lower(${typed.join(' & ')})::tsquery THEN 2 ELSE 3` : sql`ELSE 2`} END`,
    };
  },

  nearTerms(workspaceIds, word, typos) {
    const length = [...word].length;
    return sql<Term>`SELECT term, docs FROM search_terms WHERE workspace_id IN (${sql.join(workspaceIds)})
      AND len BETWEEN ${length - typos} AND ${length + typos}
      ORDER BY term OPERATOR(public.<->) ${word} LIMIT ${NEAREST_TERMS}`;
  },
};
