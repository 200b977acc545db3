import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/**
 * Issue #29: the language the user chose for the web client (`en`, `de`, `fr`, `es`: src/contracts/locales.ts);
 * null until they choose one, when the client follows the browser's languages.
 */
export async function up(db: AnyDB): Promise<void> {
  await db.schema.alterTable('users').addColumn('locale', 'text').execute();
}
