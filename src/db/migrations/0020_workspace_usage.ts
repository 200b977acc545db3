import { sql, type Kysely } from 'kysely';
import type { DialectSupport } from '../dialects/types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/**
 * Exact usage per workspace (issue #17, step 2): what plan limits are checked against.
 * - workspace_usage: bytes stored (every version and rendition, trash included), members and assets,
 *   plus reserved_bytes: storage promised to uploads that have started and not finished.
 * - Kept by triggers, so every path that adds or removes a row (including ON DELETE CASCADE from an
 *   asset, folder or workspace deletion) moves the counters in the same transaction, with atomic
 *   `SET x = x + n` statements. A version's renditions are deleted (and counted) by the version's
 *   BEFORE DELETE trigger, while the version still names its workspace.
 * - upload_sessions.reserved_bytes: what start-upload reserved, released once at completion, abort or sweep.
 * - Existing workspaces are counted once here; housekeeping's reconciliation corrects any drift later.
 */
export async function up(db: AnyDB, d: DialectSupport): Promise<void> {
  await db.schema
    .createTable('workspace_usage')
    .addColumn('workspace_id', 'integer', (c) => c.primaryKey().references('workspaces.id').onDelete('cascade'))
    .addColumn('storage_bytes', d.bigint, (c) => c.notNull().defaultTo(0))
    .addColumn('reserved_bytes', d.bigint, (c) => c.notNull().defaultTo(0))
    .addColumn('members', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('assets', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('reconciled_at', d.bigint, (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('workspace_usage_reconciled').on('workspace_usage').column('reconciled_at').execute();
  await db.schema.alterTable('upload_sessions').addColumn('reserved_bytes', d.bigint, (c) => c.notNull().defaultTo(0)).execute();

  await sql`
    INSERT INTO workspace_usage (workspace_id, storage_bytes, reserved_bytes, members, assets, reconciled_at)
    SELECT w.id,
      COALESCE((SELECT SUM(v.file_size) FROM asset_versions v WHERE v.workspace_id = w.id), 0)
        + COALESCE((SELECT SUM(r.file_size) FROM version_renditions r JOIN asset_versions v ON v.id = r.version_id WHERE v.workspace_id = w.id), 0),
      0,
      (SELECT COUNT(*) FROM workspace_members m WHERE m.workspace_id = w.id),
      (SELECT COUNT(*) FROM assets a WHERE a.workspace_id = w.id),
      0
    FROM workspaces w`.execute(db);

  if (d.name === 'sqlite') await sqliteTriggers(db);
  else await postgresTriggers(db);
}

async function sqliteTriggers(db: AnyDB): Promise<void> {
  const statements = [
    sql`CREATE TRIGGER usage_workspace_insert AFTER INSERT ON workspaces BEGIN
      INSERT INTO workspace_usage (workspace_id) VALUES (NEW.id) ON CONFLICT (workspace_id) DO NOTHING; END`,
    sql`CREATE TRIGGER usage_member_insert AFTER INSERT ON workspace_members BEGIN
      UPDATE workspace_usage SET members = members + 1 WHERE workspace_id = NEW.workspace_id; END`,
    sql`CREATE TRIGGER usage_member_delete AFTER DELETE ON workspace_members BEGIN
      UPDATE workspace_usage SET members = members - 1 WHERE workspace_id = OLD.workspace_id; END`,
    sql`CREATE TRIGGER usage_asset_insert AFTER INSERT ON assets BEGIN
      UPDATE workspace_usage SET assets = assets + 1 WHERE workspace_id = NEW.workspace_id; END`,
    sql`CREATE TRIGGER usage_asset_delete AFTER DELETE ON assets BEGIN
      UPDATE workspace_usage SET assets = assets - 1 WHERE workspace_id = OLD.workspace_id; END`,
    sql`CREATE TRIGGER usage_version_insert AFTER INSERT ON asset_versions BEGIN
      UPDATE workspace_usage SET storage_bytes = storage_bytes + NEW.file_size WHERE workspace_id = NEW.workspace_id; END`,
    sql`CREATE TRIGGER usage_version_update AFTER UPDATE OF file_size ON asset_versions WHEN NEW.file_size <> OLD.file_size BEGIN
      UPDATE workspace_usage SET storage_bytes = storage_bytes + NEW.file_size - OLD.file_size WHERE workspace_id = NEW.workspace_id; END`,
    sql`CREATE TRIGGER usage_version_delete_renditions BEFORE DELETE ON asset_versions BEGIN
      DELETE FROM version_renditions WHERE version_id = OLD.id; END`,
    sql`CREATE TRIGGER usage_version_delete AFTER DELETE ON asset_versions BEGIN
      UPDATE workspace_usage SET storage_bytes = storage_bytes - OLD.file_size WHERE workspace_id = OLD.workspace_id; END`,
    sql`CREATE TRIGGER usage_rendition_insert AFTER INSERT ON version_renditions BEGIN
      UPDATE workspace_usage SET storage_bytes = storage_bytes + NEW.file_size
      WHERE workspace_id = (SELECT workspace_id FROM asset_versions WHERE id = NEW.version_id); END`,
    sql`CREATE TRIGGER usage_rendition_update AFTER UPDATE OF file_size ON version_renditions WHEN NEW.file_size <> OLD.file_size BEGIN
      UPDATE workspace_usage SET storage_bytes = storage_bytes + NEW.file_size - OLD.file_size
      WHERE workspace_id = (SELECT workspace_id FROM asset_versions WHERE id = NEW.version_id); END`,
    sql`CREATE TRIGGER usage_rendition_delete AFTER DELETE ON version_renditions BEGIN
      UPDATE workspace_usage SET storage_bytes = storage_bytes - OLD.file_size
      WHERE workspace_id = (SELECT workspace_id FROM asset_versions WHERE id = OLD.version_id); END`,
  ];
  for (const statement of statements) await statement.execute(db);
}

async function postgresTriggers(db: AnyDB): Promise<void> {
  const statements = [
    sql`CREATE FUNCTION usage_workspace() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO workspace_usage (workspace_id) VALUES (NEW.id) ON CONFLICT (workspace_id) DO NOTHING;
        RETURN NEW;
      END $$`,
    sql`CREATE TRIGGER usage_workspace AFTER INSERT ON workspaces FOR EACH ROW EXECUTE FUNCTION usage_workspace()`,
    sql`CREATE FUNCTION usage_member() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          UPDATE workspace_usage SET members = members + 1 WHERE workspace_id = NEW.workspace_id;
        ELSE
          UPDATE workspace_usage SET members = members - 1 WHERE workspace_id = OLD.workspace_id;
        END IF;
        RETURN NULL;
      END $$`,
    sql`CREATE TRIGGER usage_member AFTER INSERT OR DELETE ON workspace_members FOR EACH ROW EXECUTE FUNCTION usage_member()`,
    sql`CREATE FUNCTION usage_asset() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          UPDATE workspace_usage SET assets = assets + 1 WHERE workspace_id = NEW.workspace_id;
        ELSE
          UPDATE workspace_usage SET assets = assets - 1 WHERE workspace_id = OLD.workspace_id;
        END IF;
        RETURN NULL;
      END $$`,
    sql`CREATE TRIGGER usage_asset AFTER INSERT OR DELETE ON assets FOR EACH ROW EXECUTE FUNCTION usage_asset()`,
    sql`CREATE FUNCTION usage_version() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          UPDATE workspace_usage SET storage_bytes = storage_bytes + NEW.file_size WHERE workspace_id = NEW.workspace_id;
        ELSIF TG_OP = 'UPDATE' THEN
          IF NEW.file_size <> OLD.file_size THEN
            UPDATE workspace_usage SET storage_bytes = storage_bytes + NEW.file_size - OLD.file_size WHERE workspace_id = NEW.workspace_id;
          END IF;
        ELSE
          UPDATE workspace_usage SET storage_bytes = storage_bytes - OLD.file_size WHERE workspace_id = OLD.workspace_id;
        END IF;
        RETURN NULL;
      END $$`,
    sql`CREATE TRIGGER usage_version AFTER INSERT OR UPDATE OF file_size OR DELETE ON asset_versions FOR EACH ROW EXECUTE FUNCTION usage_version()`,
    sql`CREATE FUNCTION usage_version_renditions() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM version_renditions WHERE version_id = OLD.id;
        RETURN OLD;
      END $$`,
    sql`CREATE TRIGGER usage_version_renditions BEFORE DELETE ON asset_versions FOR EACH ROW EXECUTE FUNCTION usage_version_renditions()`,
    sql`CREATE FUNCTION usage_rendition() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          UPDATE workspace_usage SET storage_bytes = storage_bytes + NEW.file_size
          WHERE workspace_id = (SELECT workspace_id FROM asset_versions WHERE id = NEW.version_id);
        ELSIF TG_OP = 'UPDATE' THEN
          IF NEW.file_size <> OLD.file_size THEN
            UPDATE workspace_usage SET storage_bytes = storage_bytes + NEW.file_size - OLD.file_size
            WHERE workspace_id = (SELECT workspace_id FROM asset_versions WHERE id = NEW.version_id);
          END IF;
        ELSE
          UPDATE workspace_usage SET storage_bytes = storage_bytes - OLD.file_size
          WHERE workspace_id = (SELECT workspace_id FROM asset_versions WHERE id = OLD.version_id);
        END IF;
        RETURN NULL;
      END $$`,
    sql`CREATE TRIGGER usage_rendition AFTER INSERT OR UPDATE OF file_size OR DELETE ON version_renditions FOR EACH ROW EXECUTE FUNCTION usage_rendition()`,
  ];
  for (const statement of statements) await statement.execute(db);
}
