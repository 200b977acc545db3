import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { DatabaseHandle } from './database.js';
import type { DialectSupport } from './dialects/types.js';
import * as m0001 from './migrations/0001_foundation.js';
import * as m0002 from './migrations/0002_uploads.js';
import * as m0003 from './migrations/0003_search.js';
import * as m0004 from './migrations/0004_versions.js';
import * as m0005 from './migrations/0005_social.js';
import * as m0006 from './migrations/0006_idempotency.js';
import * as m0007 from './migrations/0007_trash.js';
import * as m0008 from './migrations/0008_page_count.js';
import * as m0009 from './migrations/0009_activity.js';
import * as m0010 from './migrations/0010_sorting.js';
import * as m0011 from './migrations/0011_embedded_metadata.js';
import * as m0012 from './migrations/0012_search_metadata.js';
import * as m0013 from './migrations/0013_user_phone.js';
import * as m0014 from './migrations/0014_image_generations.js';
import * as m0015 from './migrations/0015_shared_links.js';
import * as m0016 from './migrations/0016_zip_imports.js';
import * as m0017 from './migrations/0017_conversions.js';
import * as m0018 from './migrations/0018_drives.js';
import * as m0019 from './migrations/0019_payments.js';
import * as m0020 from './migrations/0020_workspace_usage.js';
import * as m0021 from './migrations/0021_rate_limit_counters.js';
import * as m0022 from './migrations/0022_file_hashes.js';
import * as m0023 from './migrations/0023_queue_and_listing_indexes.js';
import * as m0024 from './migrations/0024_team_access.js';
import * as m0025 from './migrations/0025_asset_uploader.js';
import * as m0026 from './migrations/0026_asset_unreadable.js';
import * as m0027 from './migrations/0027_search_terms.js';
import * as m0028 from './migrations/0028_workspace_creator.js';
import * as m0029 from './migrations/0029_share_expiry_cap.js';
import * as m0030 from './migrations/0030_upload_bounds.js';
import * as m0031 from './migrations/0031_user_locale.js';
import * as m0032 from './migrations/0032_sweep_refusals.js';
import * as m0033 from './migrations/0033_custom_fields.js';
import * as m0034 from './migrations/0034_bulk_field_edits.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type DialectMigration = { up(db: Kysely<any>, d: DialectSupport): Promise<void> };

/**
 * Migrations are listed in code (not read from a folder) so that the same list
 * runs from src/ under vitest and from dist/ in production. Append only.
 */
const MIGRATIONS: Record<string, DialectMigration> = {
  '0001_foundation': m0001,
  '0002_uploads': m0002,
  '0003_search': m0003,
  '0004_versions': m0004,
  '0005_social': m0005,
  '0006_idempotency': m0006,
  '0007_trash': m0007,
  '0008_page_count': m0008,
  '0009_activity': m0009,
  '0010_sorting': m0010,
  '0011_embedded_metadata': m0011,
  '0012_search_metadata': m0012,
  '0013_user_phone': m0013,
  '0014_image_generations': m0014,
  '0015_shared_links': m0015,
  '0016_zip_imports': m0016,
  '0017_conversions': m0017,
  '0018_drives': m0018,
  '0019_payments': m0019,
  '0020_workspace_usage': m0020,
  '0021_rate_limit_counters': m0021,
  '0022_file_hashes': m0022,
  '0023_queue_and_listing_indexes': m0023,
  '0024_team_access': m0024,
  '0025_asset_uploader': m0025,
  '0026_asset_unreadable': m0026,
  '0027_search_terms': m0027,
  '0028_workspace_creator': m0028,
  '0029_share_expiry_cap': m0029,
  '0030_upload_bounds': m0030,
  '0031_user_locale': m0031,
  '0032_sweep_refusals': m0032,
  '0033_custom_fields': m0033,
  '0034_bulk_field_edits': m0034,
};

class ListProvider implements MigrationProvider {
  constructor(private readonly support: DialectSupport) {}
  getMigrations(): Promise<Record<string, Migration>> {
    const out: Record<string, Migration> = {};
    for (const [name, migration] of Object.entries(MIGRATIONS)) {
      out[name] = { up: (db) => migration.up(db, this.support) };
    }
    return Promise.resolve(out);
  }
}

export async function migrateToLatest(handle: DatabaseHandle): Promise<string[]> {
  const migrator = new Migrator({
    db: handle.db,
    provider: new ListProvider(handle.support),
    migrationTableSchema: handle.support.migrationSchema,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(`migration failed: ${JSON.stringify(error)}`);
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Applies the migrations up to and including `name`: tests of an upgrade path start from an older schema. */
export async function migrateTo(handle: DatabaseHandle, name: string): Promise<void> {
  const migrator = new Migrator({ db: handle.db, provider: new ListProvider(handle.support), migrationTableSchema: handle.support.migrationSchema });
  const { error } = await migrator.migrateTo(name);
  if (error) throw error instanceof Error ? error : new Error(`migration failed: ${JSON.stringify(error)}`);
}

/** Names of the migrations not applied yet, without applying any (read-only checks refuse a schema that is behind). */
export async function pendingMigrations(handle: DatabaseHandle): Promise<string[]> {
  const migrator = new Migrator({ db: handle.db, provider: new ListProvider(handle.support), migrationTableSchema: handle.support.migrationSchema });
  return (await migrator.getMigrations()).filter((m) => m.executedAt === undefined).map((m) => m.name);
}
