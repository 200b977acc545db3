import { computed, reactive } from 'vue';
import { storageApi } from '../api/storage';
import { staleSubscription } from '../billing/store';
import { billingFailure } from '../billing/words';
import { MultipartUpload, fingerprint, type UploadOptions, type UploadState } from './multipart-upload';
import { resumeStore, type SavedUpload } from './resume-store';

export interface UploadItem {
  id: number;
  file: File;
  name: string;
  size: number;
  loaded: number;
  state: UploadState | 'queued';
  error: string | null;
  /** The upload was refused for the workspace's plan (402): which limit, or the overdue payment (issue #17). */
  refusal: ReturnType<typeof billingFailure>;
  assetId: number | null;
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
let options: Pick<UploadOptions, 'transport' | 'store' | 'partSize' | 'retryDelayMs'> = {};

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

/** Queues files for upload into a workspace (and folder). A file that was interrupted by a reload resumes. */
export function enqueue(files: Iterable<File>, workspaceId: number, folderId: number | null): void {
  for (const file of files) {
    const key = fingerprint(file, workspaceId);
    const i = interrupted.findIndex((e) => e.key === key);
    if (i >= 0) interrupted.splice(i, 1);
    items.push({ id: nextId++, file, name: file.name, size: file.size, loaded: 0, state: 'queued', error: null, refusal: null, assetId: null, resumed: i >= 0, workspaceId, folderId });
  }
  pump();
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
    if (['done', 'cancelled'].includes(items[i]!.state)) items.splice(i, 1);
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
  active: computed(() => items.filter((i) => ['queued', 'uploading', 'completing'].includes(i.state)).length),
  /** Bytes over every file still in the list that is not cancelled. */
  totals: computed(() => {
    let loaded = 0;
    let total = 0;
    for (const i of items) {
      if (i.state === 'cancelled') continue;
      loaded += i.loaded;
      total += i.size;
    }
    return { loaded, total };
  }),
};
