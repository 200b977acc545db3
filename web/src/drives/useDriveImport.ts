import { getCurrentScope, onScopeDispose, reactive } from 'vue';
import { drivesApi, type DriveImport, type DrivesApi, type ImportItemStatus } from '../api/drives';
import { ApiError } from '../api/http';
import { errorText } from '../stores/toasts';
import { pollWithBackoff, type Backoff } from '../util/backoff';
import { isFinished } from './words';

/**
 * An import is read after 1, 2, 4, 5, 5 … s: a few files are done in seconds, a library of thousands takes
 * long, and a rate-limited drive makes the job wait minutes; the reads stop after an hour (the page then
 * offers to read again).
 */
export const IMPORT_BACKOFF: Backoff = { firstMs: 1000, maxMs: 5000, limitMs: 60 * 60_000 };
/** Per-item results shown a page at a time. */
export const IMPORT_ITEMS_PER_PAGE = 25;

export interface DriveImportState {
  current: DriveImport | null;
  /** Which items are shown: a status or all, and the page. */
  itemStatus: ImportItemStatus | null;
  itemPage: number;
  loading: boolean;
  /** The reads stopped before the import finished (the page offers to read again). */
  stale: boolean;
  error: string | null;
}

/**
 * Follows one drive import (GET /drives/imports/:id) until it succeeded or failed, with its totals, bytes and
 * a page of per-item results. `onFinished` is called once when an import followed here ends (the library and
 * the list of imports read again then).
 */
export function useDriveImport(options: { api?: Pick<DrivesApi, 'importStatus'>; backoff?: Backoff; onFinished?: (imp: DriveImport) => void } = {}) {
  const api = options.api ?? drivesApi;
  const state = reactive<DriveImportState>({ current: null, itemStatus: null, itemPage: 1, loading: false, stale: false, error: null });
  let poll: { stop: () => void } | undefined;
  let followed: number | null = null;
  let generation = 0;

  /** Reads the followed import once; true when it has finished. */
  async function read(): Promise<boolean> {
    const id = followed;
    if (id === null) return true;
    const mine = generation;
    try {
      const imp = await api.importStatus(id, {
        page: state.itemPage,
        per_page: IMPORT_ITEMS_PER_PAGE,
        ...(state.itemStatus ? { status: state.itemStatus } : {}),
      });
      if (mine !== generation) return true;
      const wasRunning = state.current?.id === imp.id && !isFinished(state.current);
      state.current = imp;
      state.error = null;
      if (isFinished(imp)) {
        if (wasRunning) options.onFinished?.(imp);
        return true;
      }
      return false;
    } catch (err) {
      if (mine !== generation) return true;
      state.error = errorText(err);
      // Gone (the workspace was left): nothing more to wait for.
      if (err instanceof ApiError && err.status === 404) return true;
      throw err;
    }
  }

  async function watch(): Promise<void> {
    poll?.stop();
    state.stale = false;
    state.loading = true;
    let done: boolean;
    try {
      done = await read();
    } catch {
      done = false;
    } finally {
      state.loading = false;
    }
    if (done) return;
    const mine = pollWithBackoff(read, options.backoff ?? IMPORT_BACKOFF);
    poll = mine;
    if ((await mine.outcome) === 'gave-up' && poll === mine) state.stale = true;
  }

  /** Follows another import (an answer of POST /{provider}/import, or an id from the list). */
  function follow(imp: DriveImport | number): Promise<void> {
    generation += 1;
    followed = typeof imp === 'number' ? imp : imp.id;
    Object.assign(state, { current: typeof imp === 'number' ? null : imp, itemStatus: null, itemPage: 1, error: null });
    return watch();
  }

  /** Another page or status filter of the per-item results (read at once; polling goes on while it runs). */
  function showItems(status: ImportItemStatus | null, page = 1): Promise<void> {
    Object.assign(state, { itemStatus: status, itemPage: page });
    generation += 1;
    return watch();
  }

  function stop(): void {
    generation += 1;
    followed = null;
    poll?.stop();
    Object.assign(state, { current: null, stale: false, error: null });
  }

  if (getCurrentScope()) onScopeDispose(() => poll?.stop());
  return { state, follow, showItems, refresh: watch, stop };
}

export type DriveImportFollower = ReturnType<typeof useDriveImport>;
