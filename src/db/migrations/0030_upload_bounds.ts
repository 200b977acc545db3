import type { Kysely } from 'kysely';
import type { DialectSupport } from '../dialects/types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/**
 * Bounded part uploads (issue #28):
 * - upload_sessions.declared_size: the `fileSize` start-upload was given (null: none). The parts of the
 *   upload together may hold at most this (and DAM_MAX_FILE_SIZE) bytes; a part past it is refused as it streams.
 * - upload_parts.file: the local store's file of the part's current body. Each PUT writes a file of its own and
 *   swaps it in here, then removes the file it replaced, so a part number holds one body on disk, concurrent PUTs
 *   included. Null for parts stored before this migration, whose file is `<n>-<md5>`.
 * - an index on upload_sessions.created_at: housekeeping sweeps uploads past DAM_UPLOAD_MAX_LIFETIME by it.
 */
export async function up(db: AnyDB, d: DialectSupport): Promise<void> {
  await db.schema.alterTable('upload_sessions').addColumn('declared_size', d.bigint).execute();
  await db.schema.alterTable('upload_parts').addColumn('file', 'text').execute();
  await db.schema.createIndex('upload_sessions_created_idx').on('upload_sessions').column('created_at').execute();
}
