import { sql, type ColumnDataType, type Kysely } from 'kysely';
import type { DialectSupport } from '../dialects/types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/**
 * Embedded metadata (issue #12): what ExifTool reads from an asset's current file (EXIF, IPTC,
 * XMP, QuickTime), kept on the asset. The facts a DAM filters and shows get a column each; the
 * whole tag set (size-capped) is `embedded_metadata`. `keywords` (JSON array) are the file's own
 * keywords as last read; `metadata_edited` (JSON array) lists the fields a user has edited
 * (caption, creator, copyright, usage_terms), which an extraction never overwrites.
 * `metadata_version_id` is the version the columns were read from (null: not read yet).
 * Every current version is queued for reading (job `version.metadata`), so files uploaded before
 * this release get their fields, and their keywords become tags, as new uploads do.
 */
export async function up(db: AnyDB, d: DialectSupport): Promise<void> {
  const double: ColumnDataType = 'double precision';
  const nullable: Array<[string, ColumnDataType]> = [
    ['taken_at', d.bigint],
    ['camera_make', 'text'],
    ['camera_model', 'text'],
    ['lens', 'text'],
    ['iso', 'integer'],
    ['exposure', 'text'],
    ['aperture', double],
    ['focal_length', double],
    ['gps_lat', double],
    ['gps_lon', double],
    ['duration', double],
    ['color_space', 'text'],
    ['caption', 'text'],
    ['creator', 'text'],
    ['copyright', 'text'],
    ['usage_terms', 'text'],
    ['metadata_version_id', d.bigint],
  ];
  // SQLite's ALTER TABLE adds one column per statement.
  for (const [name, type] of nullable) {
    await db.schema.alterTable('assets').addColumn(name, type).execute();
  }
  const texts: Array<[string, string]> = [['keywords', '[]'], ['embedded_metadata', '{}'], ['metadata_edited', '[]']];
  for (const [name, empty] of texts) {
    await db.schema.alterTable('assets').addColumn(name, 'text', (c) => c.notNull().defaultTo(empty)).execute();
  }

  const now = Math.floor(Date.now() / 1000);
  await sql`
    INSERT INTO jobs (kind, payload, status, attempts, max_attempts, run_at, created_at, updated_at)
    SELECT 'version.metadata', '{"versionId":' || CAST(id AS TEXT) || '}', 'queued', 0, 5, ${now}, ${now}, ${now}
    FROM asset_versions WHERE status = 'ready' AND is_current = 1
    ORDER BY id`.execute(db);
}
