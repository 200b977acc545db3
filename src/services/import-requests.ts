import type { DB } from '../db/database.js';
import { AppError } from '../errors.js';
import { PermanentJobError } from '../jobs/types.js';
import { findChildFolder, folderExistsInWorkspace } from '../repositories/folders.js';
import { findUserById } from '../repositories/users.js';
import { requireRole } from './access.js';
import type { Caller } from './auth-service.js';
import type { FolderService } from './folder-service.js';

/** What the background imports (ZIP archives, external drives) share of their request row. */
export interface ImportRequest {
  workspace_id: number;
  folder_id: number | null;
  requested_by: number | null;
  requested_by_name: string;
}

/** The requester, still a manager or admin of the workspace; otherwise the import fails for good. */
export async function importRequester(db: DB, imp: ImportRequest): Promise<Caller> {
  const user = imp.requested_by === null ? undefined : await findUserById(db, imp.requested_by);
  if (!user) throw new PermanentJobError('The account that asked for this import no longer exists');
  try {
    await requireRole(db, imp.workspace_id, user.id, 'manager');
  } catch (err) {
    if (err instanceof AppError) throw new PermanentJobError(`${imp.requested_by_name} may no longer add files to this workspace`);
    throw err;
  }
  return { id: user.id, email: user.email, name: user.name, isInstanceAdmin: false, sessionId: '', mustChangePassword: false };
}

/** The folder the import goes into: the top level when the one asked for was deleted or trashed since (nothing may be put into the trash). */
export async function importRoot(db: DB, imp: ImportRequest): Promise<number | null> {
  return imp.folder_id !== null && (await folderExistsInWorkspace(db, imp.workspace_id, imp.folder_id)) ? imp.folder_id : null;
}

/** The live folder `name` under `parent` (the oldest of that name), created as the requester when there is none. */
export async function findOrCreateFolder(db: DB, folders: FolderService, caller: Caller, workspaceId: number, parent: number | null, name: string): Promise<number> {
  return (await findChildFolder(db, workspaceId, parent, name)) ?? (await folders.create(caller, { workspace_id: workspaceId, name, parent_id: parent })).id;
}
