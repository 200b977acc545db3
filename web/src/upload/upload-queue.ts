import { computed, reactive } from 'vue';
import { catalogApi } from '../api/catalog';
import { damClient } from '../api/sdk';
import { storageApi } from '../api/storage';
import { staleSubscription } from '../billing/store';
import { billingFailure } from '../billing/words';
import { findDuplicates, sha256Hex } from './duplicates';
import { MultipartUpload, fingerprint, type UploadOptions, type UploadState } from './multipart-upload';
import { watchReadability } from './readability';
import { resumeStore, type SavedUpload } from './resume-store';

export interface UploadItem {
  id: number;
  file: File;
  name: string;
  size: number;
  loaded: number;
  /**
   * checking: being hashed and looked up (issue #19); duplicate: the library has the same file, waiting for the
   * user to skip it or upload it anyway; skipped: left out as a duplicate.
   */
  state: UploadState | 'queued' | 'checking' | 'duplicate' | 'skipped';
  /** The file's SHA-256 (null: not hashed, see duplicates.ts). */
  sha256: string | null;
  /** The asset that already has this file (its name, when it could be read). */
  duplicateOf: { assetId: number; name: string | null } | null;
  error: string | null;
  /** The upload was refused for the workspace's plan (402): which limit, or the overdue payment (issue #17). */
  refusal: ReturnType<typeof billingFailure>;
  assetId: number | null;
  /** Issue #27: the server found the uploaded file unreadable (./readability.ts), in its words; null: not (yet). */
  unreadable: string | null;
  /** The upload continues one that a reload interrupted. */
  resumed: boolean;
  workspaceId: number;
  folderId: number | null;
}

type Listener = (item: UploadItem) => void;

/** Files uploaded at once; each also uploads several parts in parallel. */
const FILE_CONCURRENCY = 2;

let nextId = 1;
const items = reactive<UploadItem[]>([]);
const running = new Map<number, MultipartUpload>();
const finished = new Set<Listener>();
/** Uploads a reload interrupted (from localStorage), until their file is chosen again or they are discarded. */
const interrupted = reactive<{ key: string; saved: SavedUpload }[]>(resumeStore.entries().map(([key, saved]) => ({ key, saved })));
let options: Pick<UploadOptions, 'client' | 'putPart' | 'store' | 'partSize' | 'retryDelayMs'> = {};
/** Existing assets' names looked up for one batch of duplicates, at most (the rest say "asset #id"). */
const MAX_NAME_LOOKUPS = 20;

function pump(): void {
  while (running.size < FILE_CONCURRENCY) {
    const item = items.find((i) => i.state === 'queued');
    if (!item) return;
    void start(item);
  }
}

async function start(item: UploadItem): Promise<void> {
  const upload = new MultipartUpload(item.file, {
    ...options,
    workspaceId: item.workspaceId,
    folderId: item.folderId,
    onProgress: (loaded) => {
      item.loaded = loaded;
    },
    onState: (state) => {
      item.state = state;
    },
  });
  running.set(item.id, upload);
  try {
    const { assetId } = await upload.run();
    item.assetId = assetId;
    item.loaded = item.size;
    watchReadability(item);
    for (const listener of finished) listener(item);
  } catch (err) {
    item.error = upload.error;
    item.refusal = billingFailure(err);
    // The banner and the Billing tab should show the limit the upload ran into.
    if (item.refusal) staleSubscription(item.workspaceId);
  } finally {
    running.delete(item.id);
    pump();
  }
}

/**
 * Hashes the batch's files (one at a time: each is read into memory) and asks the server in one request which it
 * already has; those wait for the user, the others queue. The check only advises: when it fails (an older server,
 * the network), every file is uploaded.
 */
async function checkDuplicates(batch: UploadItem[], workspaceId: number): Promise<void> {
  const checking = () => batch.filter((i) => i.state === 'checking');
  try {
    for (const item of checking()) item.sha256 = await sha256Hex(item.file);
    const hashes = checking().flatMap((i) => (i.sha256 ? [i.sha256] : []));
    const found = hashes.length ? await findDuplicates(options.client ?? damClient(), workspaceId, hashes) : new Map<string, number>();
    const ids = [...new Set(found.values())];
    const names = new Map<number, string>();
    await Promise.all(
      ids.slice(0, MAX_NAME_LOOKUPS).map(async (id) => {
        const asset = await catalogApi.asset(id).catch(() => null);
        if (asset) names.set(id, asset.display_file_name);
      }),
    );
    for (const item of checking()) {
      const assetId = item.sha256 ? found.get(item.sha256) : undefined;
      if (assetId === undefined) {
        item.state = 'queued';
      } else {
        item.state = 'duplicate';
        item.duplicateOf = { assetId, name: names.get(assetId) ?? null };
      }
    }
  } catch {
    for (const item of checking()) item.state = 'queued';
  }
  pump();
}

/**
 * Queues files for upload into a workspace (and folder). A file that was interrupted by a reload resumes; the others
 * are checked for duplicates first (issue #19).
 */
export function enqueue(files: Iterable<File>, workspaceId: number, folderId: number | null): void {
  const batch: UploadItem[] = [];
  for (const file of files) {
    const key = fingerprint(file, workspaceId);
    const i = interrupted.findIndex((e) => e.key === key);
    if (i >= 0) interrupted.splice(i, 1);
    const resumed = i >= 0;
    items.push({
      id: nextId++,
      file,
      name: file.name,
      size: file.size,
      loaded: 0,
      state: resumed ? 'queued' : 'checking',
      sha256: null,
      duplicateOf: null,
      error: null,
      refusal: null,
      assetId: null,
      unreadable: null,
      resumed,
      workspaceId,
      folderId,
    });
    // The reactive proxy, so that the check's changes show.
    if (!resumed) batch.push(items[items.length - 1]!);
  }
  if (batch.length) void checkDuplicates(batch, workspaceId);
  pump();
}

/** Leaves a duplicate out. */
export function skipDuplicate(id: number): void {
  const item = items.find((i) => i.id === id);
  if (item?.state === 'duplicate') item.state = 'skipped';
}

/** Uploads a duplicate all the same: a second asset with the same file. */
export function uploadAnyway(id: number): void {
  const item = items.find((i) => i.id === id);
  if (item?.state !== 'duplicate') return;
  item.state = 'queued';
  pump();
}

/** Leaves out every duplicate waiting for a choice. */
export function skipAllDuplicates(): void {
  for (const item of items) if (item.state === 'duplicate') item.state = 'skipped';
}

export async function cancel(id: number): Promise<void> {
  const item = items.find((i) => i.id === id);
  if (!item) return;
  const upload = running.get(id);
  if (upload) await upload.cancel();
  item.state = 'cancelled';
}

/** Tries a failed upload again; the parts already stored are kept (list-parts). */
export function retry(id: number): void {
  const item = items.find((i) => i.id === id);
  if (!item || item.state !== 'failed') return;
  item.state = 'queued';
  item.error = null;
  item.refusal = null;
  pump();
}

/** Forgets an interrupted upload and aborts it on the server. */
export async function discardInterrupted(key: string): Promise<void> {
  const i = interrupted.findIndex((e) => e.key === key);
  if (i < 0) return;
  const [entry] = interrupted.splice(i, 1);
  resumeStore.remove(key);
  await storageApi.abort(entry!.saved.ref).catch(() => undefined);
}

export function clearFinished(): void {
  for (let i = items.length - 1; i >= 0; i -= 1) {
    if (['done', 'cancelled', 'skipped'].includes(items[i]!.state)) items.splice(i, 1);
  }
}

export function onUploaded(listener: Listener): () => void {
  finished.add(listener);
  return () => finished.delete(listener);
}

/** For unit tests: a fake transport and store. */
export function configureUploads(next: typeof options): void {
  options = next;
}

export const uploads = {
  items,
  interrupted,
  active: computed(() => items.filter((i) => ['checking', 'queued', 'uploading', 'completing'].includes(i.state)).length),
  /** Uploaded files the server could not read (issue #27). */
  unreadable: computed(() => items.filter((i) => i.unreadable !== null).length),
  /** Duplicates waiting for the user to skip them or upload them anyway. */
  duplicates: computed(() => items.filter((i) => i.state === 'duplicate').length),
  /** Bytes over every file still in the list that is to be uploaded (not cancelled, not a duplicate). */
  totals: computed(() => {
    let loaded = 0;
    let total = 0;
    for (const i of items) {
      if (i.state === 'cancelled' || i.state === 'duplicate' || i.state === 'skipped') continue;
      loaded += i.loaded;
      total += i.size;
    }
    return { loaded, total };
  }),
};
