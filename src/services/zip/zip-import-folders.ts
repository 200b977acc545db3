import type { DB } from '../../db/database.js';
import { childFolderNames } from '../../repositories/folders.js';
import type { Caller } from '../auth-service.js';
import type { FolderService } from '../folder-service.js';

/**
 * The folders an import (zip-import-runner.ts) puts entries into, found by name under their parent
 * or created. Each parent's children are read once, by one query, and kept for the run: looking
 * each name up in the database scanned all of the parent's children every time (the index is on
 * workspace and parent, not name), so an archive of 65,000 sibling folders cost 65,000^2 row
 * reads (issue #38). As findOrCreateFolder(), the oldest live folder of a name is reused.
 */
export class ImportFolders {
  private readonly byParent = new Map<number | null, Map<string, number>>();

  constructor(
    private readonly db: DB,
    private readonly folders: FolderService,
    private readonly caller: Caller,
    private readonly workspaceId: number,
  ) {}

  async findOrCreate(parent: number | null, name: string): Promise<number> {
    let children = this.byParent.get(parent);
    if (!children) {
      children = new Map();
      for (const f of await childFolderNames(this.db, this.workspaceId, parent)) if (!children.has(f.name)) children.set(f.name, f.id);
      this.byParent.set(parent, children);
    }
    const known = children.get(name);
    if (known !== undefined) return known;
    const { id } = await this.folders.create(this.caller, { workspace_id: this.workspaceId, name, parent_id: parent });
    children.set(name, id);
    return id;
  }
}
