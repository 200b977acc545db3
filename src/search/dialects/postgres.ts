import { sql, type SqlBool } from 'kysely';
import type { TextMatch, TextSearchDialect } from './types.js';

/** A tsquery lexeme in quotes, taken verbatim by the ::tsquery cast (no parser, no dictionary). */
const lexeme = (word: string): string => `'${word.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
const likeEscaped = (word: string): string => word.replace(/[\\%_]/g, '\\$&');

/**
 * PostgreSQL: the GIN-indexed tsvector search_documents.search_vector. Both
 * the lexemes and the query are lower-cased by PostgreSQL's lower(), as the
 * trigger did. The relevance tiers test name_norm (' word word ... ').
 */
export const postgresText: TextSearchDialect = {
  textMatch(words, required): TextMatch {
    const last = words.length - 1;
    // Words the filter implies (tags it requires) narrow the GIN match before the heap is read.
    const implied = required.map((alternatives) => `(${alternatives.map((ws) => `(${ws.map(lexeme).join(' & ')})`).join(' | ')})`);
    const query = [...words.map((w, i) => `${lexeme(w)}${i === last ? ':*' : ''}`), ...implied].join(' & ');
    const starts = ` ${words.map(likeEscaped).join(' ')}%`;
    const inName = words.map((w, i) => sql<SqlBool>`d.name_norm LIKE lower(${`% ${likeEscaped(w)}${i === last ? '' : ' '}%`}) ESCAPE '\\'`);
    return {
      from: sql`search_documents d`,
      where: sql`d.search_vector @@ lower(${query})::tsquery`,
      relevance: sql<number>`CASE
        WHEN d.name_norm LIKE lower(${starts}) ESCAPE '\\' THEN 0
        WHEN ${sql.join(inName, sql` AND `)} THEN 1
        ELSE 2 END`,
    };
  },
};
