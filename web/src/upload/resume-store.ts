import type { UploadRef } from '../api/storage';

export interface SavedUpload {
  ref: UploadRef;
  partSize: number;
  name: string;
  size: number;
  /** Date.now() when it started. */
  savedAt: number;
}

/** Remembers unfinished uploads across page reloads, by file fingerprint. */
export interface ResumeStore {
  get(key: string): SavedUpload | undefined;
  put(key: string, value: SavedUpload): void;
  remove(key: string): void;
  entries(): [string, SavedUpload][];
}

const KEY = 'dam.uploads';
/** The server sweeps untouched uploads after a day (DAM_UPLOAD_TTL); older entries are useless. */
const MAX_AGE_MS = 24 * 3600 * 1000;

function read(): Record<string, SavedUpload> {
  try {
    const all = JSON.parse(localStorage.getItem(KEY) ?? '{}') as Record<string, SavedUpload>;
    const now = Date.now();
    return Object.fromEntries(Object.entries(all).filter(([, v]) => now - v.savedAt < MAX_AGE_MS));
  } catch {
    return {};
  }
}

function write(all: Record<string, SavedUpload>): void {
  if (Object.keys(all).length === 0) localStorage.removeItem(KEY);
  else localStorage.setItem(KEY, JSON.stringify(all));
}

export const resumeStore: ResumeStore = {
  get: (key) => read()[key],
  put: (key, value) => write({ ...read(), [key]: value }),
  remove: (key) => {
    const all = read();
    delete all[key];
    write(all);
  },
  entries: () => Object.entries(read()),
};

export function memoryResumeStore(): ResumeStore {
  const map = new Map<string, SavedUpload>();
  return {
    get: (key) => map.get(key),
    put: (key, value) => void map.set(key, value),
    remove: (key) => void map.delete(key),
    entries: () => [...map.entries()],
  };
}
