import { flushPromises } from '@vue/test-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { effectScope } from 'vue';
import type { DriveImport, DriveItem, DriveListing, DriveListQuery, DriveProvider, DriveProviderId } from '../src/api/drives';
import { ApiError } from '../src/api/http';
import { folderLabel, folderPickOptions } from '../src/drives/folders';
import { drives, loadDrives, markConnection, resetDrives } from '../src/drives/store';
import { useDriveBrowser } from '../src/drives/useDriveBrowser';
import { useDriveImport } from '../src/drives/useDriveImport';
import {
  callbackOutcome,
  connectionProblem,
  driveErrorText,
  driveName,
  importCounts,
  importStatusText,
  itemDetail,
  itemKind,
  itemOutcome,
} from '../src/drives/words';

const GOOGLE: DriveProvider = { id: 'drive-ext-1', name: 'Google Drive', search: true, connection: null };

function item(id: string, overrides: Partial<DriveItem> = {}): DriveItem {
  return {
    id,
    name: id,
    is_folder: false,
    mime_type: 'image/png',
    size: 2048,
    modified_at: '2024-05-01T10:00:00Z',
    thumbnail_url: null,
    export: null,
    unsupported: null,
    ...overrides,
  };
}
const folder = (id: string, name = id) => item(id, { name, is_folder: true, mime_type: 'application/vnd.google-apps.folder', size: null });

function imp(overrides: Partial<DriveImport> = {}): DriveImport {
  return {
    id: 7,
    provider: 'drive-ext-1',
    workspace_id: 5,
    folder_id: 12,
    recursive: true,
    status: 'queued',
    planned: false,
    total_files: 0,
    folders: 0,
    processed_files: 0,
    pending: 0,
    imported: 0,
    skipped: 0,
    failed: 0,
    progress: 0,
    bytes: 0,
    error: null,
    created_at: 1,
    updated_at: 1,
    items: { items: [], page: 1, per_page: 25, total: 0 },
    ...overrides,
  };
}

describe('what the Drives page says', () => {
  const providers = [GOOGLE];

  it('puts the OAuth callback\'s answer into words, naming only drives it knows', () => {
    expect(callbackOutcome({ connected: 'drive-ext-1' }, providers)).toEqual({ kind: 'success', text: 'Google Drive is connected. Browse it below.' });
    expect(callbackOutcome({ error: 'access_denied', provider: 'drive-ext-1' }, providers)?.text).toBe('Google Drive was not connected: access was not granted.');
    expect(callbackOutcome({ error: 'invalid_state', provider: 'drive-ext-1' }, providers)?.text).toMatch(/^Google Drive was not connected: the sign-in expired/);
    expect(callbackOutcome({ error: 'exchange_failed', provider: 'drive-ext-2' }, providers)?.text).toBe('Dropbox was not connected: it did not accept the sign-in. Try again.');
    expect(callbackOutcome({ error: 'temporarily_unavailable', provider: 'evil' }, providers)).toEqual({ kind: 'error', text: 'The drive was not connected (temporarily_unavailable).' });
    expect(callbackOutcome({ error: 'x', provider: 'constructor' }, providers)?.text).toBe('The drive was not connected (x).');
    expect(callbackOutcome({ error: ['access_denied', 'other'] }, providers)?.text).toBe('The drive was not connected: access was not granted.');
    expect(callbackOutcome({}, providers)).toBeNull();
    expect(callbackOutcome({ connected: '' }, providers)).toBeNull();
  });

  it('names a provider from GET /drives, or by its id for an import of one no longer configured', () => {
    expect(driveName('drive-ext-1', [{ id: 'drive-ext-1', name: 'Google Drive (work)' }])).toBe('Google Drive (work)');
    expect(driveName('drive-ext-3')).toBe('OneDrive');
    expect(driveName('drive-ext-9')).toBe('drive-ext-9');
  });

  it('says what to do about a refused connection, and the provider\'s own message with its wait', () => {
    const reauth = new ApiError('The drive connection has to be authorised again', 409, 'DRIVE_REAUTH_REQUIRED');
    expect(driveErrorText(reauth, 'Google Drive')).toBe('Google Drive has to be authorised again: use Re-authorise on the Drives page.');
    expect(connectionProblem(reauth)).toBe('reauth_required');
    expect(connectionProblem(new ApiError('Google Drive is not connected', 409, 'DRIVE_NOT_CONNECTED'))).toBe('gone');
    expect(connectionProblem(new ApiError('Boom', 502, 'DRIVE_PROVIDER_ERROR'))).toBeNull();
    const limited = new ApiError('User rate limit exceeded.', 502, 'DRIVE_PROVIDER_ERROR', undefined, { provider_status: 429, retry_after: 30 });
    expect(driveErrorText(limited, 'Google Drive')).toBe('Google Drive failed: User rate limit exceeded. Try again in 30 s.');
    expect(driveErrorText(new ApiError('The server could not be reached.', 0), 'Google Drive')).toBe('The server could not be reached.');
  });

  it('describes items: what a provider document becomes, why an item cannot be imported, the icon', () => {
    expect(itemDetail(item('a.png', { size: 2048 }))).toBe('2.0 kB');
    expect(itemDetail(folder('f'))).toBe('Folder');
    const sheet = item('Budget', { mime_type: 'application/vnd.google-apps.spreadsheet', size: null, export: { mime_type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', extension: '.xlsx' } });
    expect(itemDetail(sheet)).toBe('Imported as XLSX');
    expect(itemKind(sheet)).toBe('document');
    expect(itemDetail(item('Form', { unsupported: 'Google Forms cannot be downloaded' }))).toBe('Cannot be imported: Google Forms cannot be downloaded');
    expect(itemKind(folder('f'))).toBe('folder');
    expect(itemKind(item('v', { mime_type: 'video/mp4' }))).toBe('video');
    expect(itemKind(item('z', { mime_type: 'application/zip' }))).toBe('archive');
    expect(itemKind(item('b', { mime_type: 'application/octet-stream' }))).toBe('file');
  });

  it('tells how an import goes, and what became of each item', () => {
    expect(importStatusText(imp())).toBe('Waiting to start…');
    expect(importStatusText(imp({ error: 'Google Drive is rate limiting: retrying in 60 s' }))).toBe('Waiting to try again: Google Drive is rate limiting: retrying in 60 s');
    expect(importStatusText(imp({ status: 'running', total_files: 40, processed_files: 3 }))).toBe('Finding files: 40 files so far, 3 done');
    expect(importStatusText(imp({ status: 'running', planned: true, total_files: 200, processed_files: 120 }))).toBe('Importing: 120 of 200 files done');
    expect(importStatusText(imp({ status: 'succeeded', planned: true, imported: 197, skipped: 2, failed: 1, folders: 4, bytes: 5 * 1024 * 1024 }))).toBe(
      'Done: 197 imported · 2 skipped · 1 failed · 4 folders · 5.0 MB',
    );
    expect(importStatusText(imp({ status: 'failed', error: 'The drive was disconnected', imported: 1 }))).toBe('Failed: The drive was disconnected (1 file imported before it stopped)');
    expect(importCounts(imp())).toBe('no files');

    const file = { kind: 'file' as const, message: null };
    expect(itemOutcome({ ...file, status: 'imported', reason: 'new' })).toBe('Imported');
    expect(itemOutcome({ ...file, status: 'imported', reason: 'new_version' })).toBe('Imported as a new version');
    expect(itemOutcome({ ...file, status: 'skipped', reason: 'unchanged' })).toBe('Already imported, unchanged');
    expect(itemOutcome({ ...file, status: 'failed', reason: 'not_found', message: 'File not found: abc.' })).toBe('Not found on the drive: File not found: abc.');
    expect(itemOutcome({ ...file, status: 'failed', reason: 'something_new' })).toBe('Failed');
    expect(itemOutcome({ ...file, status: 'pending', reason: null })).toBe('Waiting');
    expect(itemOutcome({ kind: 'folder', status: 'imported', reason: null, message: null })).toBe('Folder created');
  });

  it('offers library folders by path, the top level first, as the move picker does', () => {
    const folders = [
      { id: 2, name: 'Spring', parent_id: 1 },
      { id: 1, name: 'Projects', parent_id: null },
      { id: 3, name: 'Archive', parent_id: null },
    ].map((f) => ({ ...f, workspace_id: 5, visibility: 0, tags: [], created_at: 1, modified_at: 1 })) as unknown as Parameters<typeof folderPickOptions>[0];
    const byId = new Map(folders.map((f) => [f.id, f]));
    const pathOf = (id: number) => {
      const out = [];
      for (let f = byId.get(id); f; f = f.parent_id === null ? undefined : byId.get(f.parent_id)) out.unshift(f);
      return out;
    };
    expect(folderPickOptions(folders, pathOf)).toEqual([
      { value: null, label: '— No folder (top level)' },
      { value: 3, label: 'Archive' },
      { value: 1, label: 'Projects' },
      { value: 2, label: 'Projects / Spring' },
    ]);
    expect(folderLabel(folders, 2)).toBe('“Spring”');
    expect(folderLabel(folders, null)).toBe('the top level');
    expect(folderLabel(folders, 99)).toBe('a folder');
  });
});

describe('GET /drives, kept for the page load', () => {
  afterEach(() => resetDrives());

  it('is asked once, again when forced, and a server without drives counts as none configured', async () => {
    const list = vi.fn(async () => ({ providers: [{ ...GOOGLE }] }));
    await Promise.all([loadDrives({ api: { list } }), loadDrives({ api: { list } })]);
    await loadDrives({ api: { list } });
    expect(list).toHaveBeenCalledTimes(1);
    expect(drives.providers.map((p) => p.id)).toEqual(['drive-ext-1']);
    await loadDrives({ force: true, api: { list } });
    expect(list).toHaveBeenCalledTimes(2);

    resetDrives();
    await loadDrives({ api: { list: async () => Promise.reject(new ApiError('Route GET:/drives not found', 404)) } });
    expect(drives).toMatchObject({ loaded: true, providers: [], error: null });
  });

  it('marks a connection the server refused, at once', async () => {
    const connection = { account_id: '1', account_email: 'pat@example.test', account_name: null, scopes: [], status: 'active' as const, status_note: null, connected_at: 1, updated_at: 1 };
    await loadDrives({ api: { list: async () => ({ providers: [{ ...GOOGLE, connection }] }) } });
    markConnection('drive-ext-1', 'reauth_required', 'The refresh token was refused');
    expect(drives.providers[0]!.connection).toMatchObject({ status: 'reauth_required', status_note: 'The refresh token was refused' });
    markConnection('drive-ext-1', 'gone');
    expect(drives.providers[0]!.connection).toBeNull();
  });
});

/** A drive of folders: `tree[folder]` lists its items, answered `pageSize` at a time; `q` searches every item by name. */
function fakeFiles(tree: Record<string, DriveItem[]>, pageSize = 2) {
  return vi.fn(async (_id: DriveProviderId, query: DriveListQuery = {}): Promise<DriveListing> => {
    const all = query.q ? Object.values(tree).flat().filter((i) => i.name.includes(query.q!)) : (tree[query.folder ?? 'root'] ?? []);
    const at = query.cursor ? Number(query.cursor.split(':')[1]) : 0;
    const next = at + pageSize < all.length ? `c:${at + pageSize}` : null;
    return { folder: query.folder ?? null, items: all.slice(at, at + pageSize), next_cursor: next };
  });
}

describe('browsing a drive', () => {
  const tree = {
    root: [folder('f1', 'Holiday'), folder('f2', 'Work'), item('a.png'), item('form', { unsupported: 'Google Forms cannot be downloaded' })],
    f1: [folder('f3', 'Raw'), item('beach.png'), item('dunes.png'), item('sunset.png')],
    f3: [item('raw-1.dng')],
  };

  it('opens folders, keeps the path, pages with the cursor of the same listing, and goes back up', async () => {
    const files = fakeFiles(tree);
    const scope = effectScope();
    const b = scope.run(() => useDriveBrowser({ api: { files }, pageSize: 2 }))!;
    await b.open(GOOGLE);
    expect(files).toHaveBeenLastCalledWith('drive-ext-1', { limit: 2 }, expect.anything());
    expect(b.state.items.map((i) => i.id)).toEqual(['f1', 'f2']);
    expect(b.state.nextCursor).toBe('c:2');
    await b.loadMore();
    expect(files).toHaveBeenLastCalledWith('drive-ext-1', { cursor: 'c:2', limit: 2 });
    expect(b.state.items.map((i) => i.id)).toEqual(['f1', 'f2', 'a.png', 'form']);
    expect(b.state.nextCursor).toBeNull();

    await b.enter(b.state.items[0]!);
    await b.enter(folder('f3', 'Raw'));
    expect(b.state.trail.map((c) => c.name)).toEqual(['Google Drive', 'Holiday', 'Raw']);
    expect(files).toHaveBeenLastCalledWith('drive-ext-1', { folder: 'f3', limit: 2 }, expect.anything());
    await b.enter(item('raw-1.dng'));
    expect(b.state.trail).toHaveLength(3);
    await b.goTo(1);
    expect(b.state.trail.map((c) => c.id)).toEqual([null, 'f1']);
    expect(b.state.items.map((i) => i.id)).toEqual(['f3', 'beach.png']);
    scope.stop();
  });

  it('searches the whole drive, and a folder opened from the results has an unknown path', async () => {
    const files = fakeFiles(tree, 10);
    const scope = effectScope();
    const b = scope.run(() => useDriveBrowser({ api: { files } }))!;
    await b.open(GOOGLE);
    await b.enter(folder('f1', 'Holiday'));
    await b.find('  Ra ');
    expect(files).toHaveBeenLastCalledWith('drive-ext-1', { q: 'Ra', limit: 50 }, expect.anything());
    expect(b.state.items.map((i) => i.id)).toEqual(['f3']);
    await b.enter(b.state.items[0]!);
    expect(b.state.search).toBeNull();
    expect(b.state.trail).toEqual([{ id: null, name: 'Google Drive' }, { id: 'f3', name: 'Raw', gap: true }]);
    await b.find('sun');
    await b.find('');
    expect(b.state.items.map((i) => i.id)).toEqual(['raw-1.dng']);
    scope.stop();
  });

  it('keeps the selection across folders, selects ranges with Shift, and never an item that cannot be imported', async () => {
    const files = fakeFiles(tree, 10);
    const scope = effectScope();
    const b = scope.run(() => useDriveBrowser({ api: { files } }))!;
    await b.open(GOOGLE);
    b.toggle('a.png');
    b.toggleAll();
    expect([...b.selectedIds].sort()).toEqual(['a.png', 'f1', 'f2']);
    b.toggleAll();
    expect(b.selectedIds.size).toBe(0);
    b.toggle('a.png');
    await b.enter(folder('f1', 'Holiday'));
    b.toggle('beach.png');
    b.toggle('sunset.png', true);
    expect(b.selected.value.map((i) => i.name)).toEqual(['a.png', 'beach.png', 'dunes.png', 'sunset.png']);
    b.toggle('dunes.png');
    expect(b.selected.value.map((i) => i.name)).toEqual(['a.png', 'beach.png', 'sunset.png']);
    // Another drive starts afresh.
    await b.open({ id: 'drive-ext-2', name: 'Dropbox' });
    expect(b.selectedIds.size).toBe(0);
    scope.stop();
  });

  it('drops an answer that comes after the user moved on, and reports a connection that must be made again', async () => {
    let release: (listing: DriveListing) => void = () => undefined;
    const files = vi
      .fn<(id: DriveProviderId, query?: DriveListQuery, signal?: AbortSignal) => Promise<DriveListing>>()
      .mockImplementationOnce(() => new Promise((resolve) => (release = resolve)))
      .mockResolvedValueOnce({ folder: 'f1', items: [item('beach.png')], next_cursor: null })
      .mockRejectedValueOnce(new ApiError('Google Drive needs to be connected again', 409, 'DRIVE_REAUTH_REQUIRED'));
    const problems: string[] = [];
    const scope = effectScope();
    const b = scope.run(() => useDriveBrowser({ api: { files }, onProblem: (p) => problems.push(p) }))!;
    const slow = b.open(GOOGLE);
    await b.enter(folder('f1', 'Holiday'));
    release({ folder: null, items: [item('late.png')], next_cursor: null });
    await slow;
    expect(b.state.items.map((i) => i.id)).toEqual(['beach.png']);
    await b.load();
    expect(b.state).toMatchObject({ items: [], problem: 'reauth_required', error: 'Google Drive has to be authorised again: use Re-authorise on the Drives page.' });
    expect(problems).toEqual(['reauth_required']);
    scope.stop();
  });

  it('as a destination picker lists only folders, reading on through pages of files (not every provider lists folders first)', async () => {
    const files = fakeFiles({ ...tree, root: [item('a.png'), item('b.png'), item('c.png'), item('d.png'), folder('late', 'Late folder'), item('e.png'), item('f.png')] }, 2);
    const scope = effectScope();
    const b = scope.run(() => useDriveBrowser({ api: { files }, pageSize: 2, foldersOnly: true }))!;
    await b.open(GOOGLE);
    expect(b.state.items.map((i) => i.id)).toEqual(['late']);
    expect(files).toHaveBeenCalledTimes(3);
    expect(b.state.nextCursor).toBe('c:6');
    await b.loadMore();
    expect(b.state.items.map((i) => i.id)).toEqual(['late']);
    expect(b.state.nextCursor).toBeNull();
    await b.enter(folder('f1', 'Holiday'));
    expect(b.state.items.map((i) => i.id)).toEqual(['f3']);
    expect(b.folder.value).toBe('f1');
    scope.stop();
  });
});

describe('following an import', () => {
  const BACKOFF = { firstMs: 1000, maxMs: 4000, limitMs: 20_000 };
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('reads it with backoff until it ends, tells once that it finished, and pages its items by status', async () => {
    const reads = [
      imp({ status: 'running', total_files: 2, processed_files: 0 }),
      imp({ status: 'running', planned: true, total_files: 3, processed_files: 1, imported: 1, progress: 1 / 3 }),
      imp({ status: 'succeeded', planned: true, total_files: 3, processed_files: 3, imported: 2, failed: 1, progress: 1 }),
    ];
    const importStatus = vi.fn(async () => (reads.length > 1 ? reads.shift()! : reads[0]!));
    const finished: DriveImport[] = [];
    const scope = effectScope();
    const f = scope.run(() => useDriveImport({ api: { importStatus }, backoff: BACKOFF, onFinished: (i) => finished.push(i) }))!;
    const done = f.follow(imp());
    await flushPromises();
    expect(importStatus).toHaveBeenCalledTimes(1);
    expect(importStatus).toHaveBeenLastCalledWith(7, { page: 1, per_page: 25 });
    expect(f.state.current?.status).toBe('running');
    await vi.advanceTimersByTimeAsync(1000);
    expect(f.state.current?.processed_files).toBe(1);
    await vi.advanceTimersByTimeAsync(2000);
    await done;
    expect(f.state.current?.status).toBe('succeeded');
    expect(finished.map((i) => i.status)).toEqual(['succeeded']);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(importStatus).toHaveBeenCalledTimes(3);

    await f.showItems('failed', 2);
    expect(importStatus).toHaveBeenLastCalledWith(7, { page: 2, per_page: 25, status: 'failed' });
    // A finished import opened from the list is not "finished" again.
    await f.follow(8);
    expect(finished).toHaveLength(1);
    scope.stop();
  });

  it('offers to read again when the reads stop first, and stops for an import that is gone', async () => {
    const importStatus = vi.fn(async () => imp({ status: 'running' }));
    const scope = effectScope();
    const f = scope.run(() => useDriveImport({ api: { importStatus }, backoff: BACKOFF }))!;
    const done = f.follow(7);
    await vi.advanceTimersByTimeAsync(30_000);
    await done;
    expect(f.state.stale).toBe(true);

    importStatus.mockRejectedValue(new ApiError('Import not found', 404, 'NOT_FOUND'));
    await f.follow(9);
    expect(f.state.error).toBe('Import not found');
    await vi.advanceTimersByTimeAsync(30_000);
    expect(importStatus.mock.calls.filter((c) => (c as unknown[])[0] === 9)).toHaveLength(1);
    scope.stop();
  });
});
