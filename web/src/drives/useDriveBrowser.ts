import { computed, getCurrentScope, onScopeDispose, reactive, shallowReactive } from 'vue';
import { drivesApi, type DriveItem, type DriveProvider, type DrivesApi } from '../api/drives';
import { ApiError } from '../api/http';
import { translate } from '../i18n';
import { GridSelection } from '../library/selection';
import { connectionProblem, driveErrorText } from './words';

/** Items asked for per listing page ("Load more" asks for the next). */
export const DRIVE_PAGE_SIZE = 50;
/** A folder picker reads at most this many pages in a row looking for folders ("More folders" goes on). */
const FOLDER_PAGES = 10;

/** A step of the folder path; `gap`: folders between it and the root are not known (a folder opened from a search). */
export interface Crumb {
  id: string | null;
  name: string;
  gap?: boolean;
}

export interface DriveBrowserState {
  provider: Pick<DriveProvider, 'id' | 'name'> | null;
  /** The root first, the folder shown last. */
  trail: Crumb[];
  /** The search shown instead of a folder (the whole drive), or null. */
  search: string | null;
  items: DriveItem[];
  nextCursor: string | null;
  loading: boolean;
  loadingMore: boolean;
  error: string | null;
  /** Set when the listing failed because the connection must be made again. */
  problem: 'reauth_required' | 'gone' | null;
}

/**
 * Browsing one connected drive (issue #16): a folder at a time with its path, the provider's pages one after the
 * other (next_cursor), a name search over the whole drive, and a selection that is kept while moving between
 * folders (so files of several folders go into one import). Answers that arrive after the user moved on are
 * dropped; `onProblem` hears of a connection that has to be made again.
 */
export function useDriveBrowser(
  options: {
    api?: Pick<DrivesApi, 'files'>;
    pageSize?: number;
    onProblem?: (problem: 'reauth_required' | 'gone', err: ApiError) => void;
    /** Only folders are wanted (a destination picker): files are dropped from the listing. */
    foldersOnly?: boolean;
  } = {},
) {
  const api = options.api ?? drivesApi;
  const pageSize = options.pageSize ?? DRIVE_PAGE_SIZE;
  const state = reactive<DriveBrowserState>({
    provider: null,
    trail: [],
    search: null,
    items: [],
    nextCursor: null,
    loading: false,
    loadingMore: false,
    error: null,
    problem: null,
  });
  /** Selected item ids, and every item met while browsing (the selection's names, across folders). */
  const selectedIds = reactive(new Set<string>());
  const known = shallowReactive(new Map<string, DriveItem>());
  const selection = new GridSelection<string>(selectedIds);
  let generation = 0;
  let controller: AbortController | undefined;

  const folder = computed(() => (state.search === null ? (state.trail[state.trail.length - 1]?.id ?? null) : null));
  const selected = computed(() => [...selectedIds].map((id) => known.get(id)).filter((i): i is DriveItem => i !== undefined));
  /** Items that can be selected, in listing order (Shift-click ranges run over these). */
  const selectable = computed(() => state.items.filter((i) => !i.unsupported));

  function query(cursor?: string) {
    return {
      ...(folder.value !== null ? { folder: folder.value } : {}),
      ...(state.search !== null ? { q: state.search } : {}),
      ...(cursor ? { cursor } : {}),
      limit: pageSize,
    };
  }

  function keep(items: DriveItem[]): DriveItem[] {
    for (const item of items) known.set(item.id, item);
    return options.foldersOnly ? items.filter((i) => i.is_folder) : items;
  }

  function fail(err: unknown): void {
    state.error = driveErrorText(err, state.provider?.name ?? translate('drives.theDrive'));
    const problem = connectionProblem(err);
    state.problem = problem;
    if (problem && err instanceof ApiError) options.onProblem?.(problem, err);
  }

  async function load(): Promise<void> {
    const provider = state.provider;
    if (!provider) return;
    const mine = ++generation;
    controller?.abort();
    controller = typeof AbortController === 'function' ? new AbortController() : undefined;
    Object.assign(state, { loading: true, loadingMore: false, error: null, problem: null, items: [], nextCursor: null });
    try {
      const page = await api.files(provider.id, query(), controller?.signal);
      if (mine !== generation) return;
      state.items = keep(page.items);
      state.nextCursor = page.next_cursor;
    } catch (err) {
      if (mine === generation) fail(err);
    } finally {
      if (mine === generation) state.loading = false;
    }
    // A folder picker whose first page held only files looks further.
    if (mine === generation && options.foldersOnly && !state.items.length && state.nextCursor) await loadMore();
  }

  async function loadMore(): Promise<void> {
    const provider = state.provider;
    if (!provider || !state.nextCursor || state.loading || state.loadingMore) return;
    const mine = generation;
    state.loadingMore = true;
    state.error = null;
    try {
      // A folder picker reads on through pages of files only (providers do not all list folders first), a few at most.
      for (let pages = 0; state.nextCursor && pages < FOLDER_PAGES; pages += 1) {
        const page = await api.files(provider.id, query(state.nextCursor));
        if (mine !== generation) return;
        const seen = new Set(state.items.map((i) => i.id));
        const added = keep(page.items).filter((i) => !seen.has(i.id));
        state.items = [...state.items, ...added];
        state.nextCursor = page.next_cursor;
        if (added.length || !options.foldersOnly) break;
      }
    } catch (err) {
      if (mine === generation) fail(err);
    } finally {
      if (mine === generation) state.loadingMore = false;
    }
  }

  /** Shows the root of `provider`; a different drive also starts a new selection. */
  function open(provider: Pick<DriveProvider, 'id' | 'name'>): Promise<void> {
    if (state.provider?.id !== provider.id) clearSelection();
    state.provider = { id: provider.id, name: provider.name };
    state.trail = [{ id: null, name: provider.name }];
    state.search = null;
    return load();
  }

  function enter(item: Pick<DriveItem, 'id' | 'name' | 'is_folder'>): Promise<void> {
    if (!item.is_folder || !state.provider) return Promise.resolve();
    const root = state.trail[0] ?? { id: null, name: state.provider.name };
    // From a search the folders between the root and this one are not known.
    state.trail = state.search !== null ? [root, { id: item.id, name: item.name, gap: true }] : [...state.trail, { id: item.id, name: item.name }];
    state.search = null;
    return load();
  }

  /** Back to a folder of the path (its index in `trail`); also ends a search. */
  function goTo(index: number): Promise<void> {
    if (index < 0 || index >= state.trail.length) return Promise.resolve();
    state.trail = state.trail.slice(0, index + 1);
    state.search = null;
    return load();
  }

  /** Searches the whole drive by name; an empty text goes back to the folder shown before. */
  function find(text: string): Promise<void> {
    const q = text.trim().slice(0, 200);
    state.search = q === '' ? null : q;
    return load();
  }

  function toggle(id: string, shift = false): void {
    selection.click(selectable.value.map((i) => i.id), id, shift);
  }

  /** Selects every selectable item shown, or unselects them when all are selected. */
  function toggleAll(): void {
    const ids = selectable.value.map((i) => i.id);
    const all = ids.length > 0 && ids.every((id) => selectedIds.has(id));
    for (const id of ids) {
      if (all) selectedIds.delete(id);
      else selectedIds.add(id);
    }
  }

  function clearSelection(): void {
    selection.clear();
  }

  function close(): void {
    generation += 1;
    controller?.abort();
  }
  if (getCurrentScope()) onScopeDispose(close);

  return { state, folder, selected, selectedIds, selectable, open, enter, goTo, find, load, loadMore, toggle, toggleAll, clearSelection, close };
}

export type DriveBrowser = ReturnType<typeof useDriveBrowser>;
