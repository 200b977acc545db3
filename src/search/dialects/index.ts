import type { DialectName } from '../../db/dialects/types.js';
import { postgresText } from './postgres.js';
import { sqliteText } from './sqlite.js';
import type { TextSearchDialect } from './types.js';

export type { Alternatives, TextMatch, TextSearchDialect, TypoMatch } from './types.js';

export const textSearchDialects: Readonly<Record<DialectName, TextSearchDialect>> = {
  sqlite: sqliteText,
  postgres: postgresText,
};
