import { sql, type Kysely } from 'kysely';
import type { DialectSupport } from '../../dialects/types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/** PostgreSQL replaces the column's CHECK constraint (named by PostgreSQL's rule, `<table>_<column>_check`). */
export async function allowRenditionKinds(db: AnyDB, _d: DialectSupport, kinds: readonly string[]): Promise<void> {
  await sql`ALTER TABLE version_renditions DROP CONSTRAINT version_renditions_kind_check`.execute(db);
  await sql`
    ALTER TABLE version_renditions ADD CONSTRAINT version_renditions_kind_check
    CHECK (kind in (${sql.join(kinds.map((k) => sql.lit(k)))}))`.execute(db);
}
