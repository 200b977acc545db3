import type { DB } from '../db/database.js';
import type { Role } from '../db/schema.js';
import { parseSortOrder, type Sort, type SortOrder } from '../domain/sort-orders.js';
import { AppError, appError, notFound } from '../errors.js';
import { requireRole } from './access.js';

/**
 * Loads a catalog row by id, then checks the caller's role in the row's
 * workspace through requireRole. A missing row and a row of a workspace the
 * caller is not a member of give the same 404 `<what> not found`; a member
 * whose role is too low gets 403.
 */
export async function loadAuthorized<T extends { workspace_id: number }>(
  db: DB,
  what: string,
  load: () => Promise<T | undefined>,
  userId: number,
  min: Role,
): Promise<T> {
  const row = await load();
  if (!row) throw notFound(what);
  try {
    await requireRole(db, row.workspace_id, userId, min);
  } catch (err) {
    if (err instanceof AppError && err.code === 'NOT_FOUND') throw notFound(what);
    throw err;
  }
  return row;
}

/**
 * A reference to a row that is not in the workspace (missing, or in another
 * workspace: the two are indistinguishable) is a 400 naming the field.
 */
export function badReference(field: string, message: string): AppError {
  return appError('VALIDATION_ERROR', `${field}: ${message}`, { field });
}

export interface PageRequest {
  page?: number;
  per_page?: number;
}

export function pageWindow(q: PageRequest): { page: number; per_page: number; limit: number; offset: number } {
  const page = q.page ?? 1;
  const perPage = q.per_page ?? 50;
  return { page, per_page: perPage, limit: perPage, offset: (page - 1) * perPage };
}

/** The page and the order of a catalog list (`?sort_by=`; omitted: by id ascending). */
export function listWindow(
  q: PageRequest & { sort_by?: SortOrder },
  what: 'assets' | 'folders' | 'collections',
): ReturnType<typeof pageWindow> & { sort?: Sort } {
  const w = pageWindow(q);
  return q.sort_by ? { ...w, sort: parseSortOrder(q.sort_by, what) } : w;
}

/** `root` in a list filter means "no parent/folder". */
export function folderFilter(ref: number | 'root' | undefined): number | null | undefined {
  return ref === 'root' ? null : ref;
}

/** `?permanent=true` skips the trash and deletes at once: workspace admins only (403 for anyone else). */
export async function requirePermanentDeletion(db: DB, workspaceId: number, userId: number): Promise<void> {
  const role = await requireRole(db, workspaceId, userId, 'viewer');
  if (role !== 'admin') {
    throw appError('FORBIDDEN', `permanent=true deletes at once, without the trash, and needs the admin role in this workspace; you are ${role}`);
  }
}
