import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/**
 * Issue #13: an account's optional phone number, always stored in E.164 (`+442079460958`) after
 * validation through src/domain/phone-numbers.ts; null when the user has none. Not unique: a
 * household or an office line may be shared.
 */
export async function up(db: AnyDB): Promise<void> {
  await db.schema.alterTable('users').addColumn('phone', 'text').execute();
}
