import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { configDir } from './session.js';

/** An upload opened on the server and not finished: enough to resume it (list-parts) or give it up. */
export interface OpenUpload {
  uploadId: string;
  assetId: number;
  partSize: number;
}

type Entry =
  | { t: 'folder'; key: string; id: number }
  | { t: 'open'; file: string; size: number; mtimeMs: number; upload: OpenUpload }
  | { t: 'sending'; file: string; size: number; mtimeMs: number; key: string }
  | { t: 'done'; file: string; size: number; mtimeMs: number; assetId: number };

/**
 * The resume record of one upload run: an append-only journal of JSON lines (folders made, uploads opened, files
 * finished). A line is appended as each event happens, so a run killed at any moment loses at most the line being
 * written, which is ignored on reading; appending keeps a run of thousands of files from rewriting a growing file.
 * A file counts as the same one on resume when its size and modification time are unchanged.
 */
export class UploadState {
  readonly folders = new Map<string, number>();
  readonly open = new Map<string, { size: number; mtimeMs: number; upload: OpenUpload }>();
  /** Small files sent in one request: the Idempotency-Key, so that sending one again answers the first asset. */
  readonly sending = new Map<string, { size: number; mtimeMs: number; key: string }>();
  readonly done = new Map<string, { size: number; mtimeMs: number; assetId: number }>();

  private constructor(readonly file: string) {}

  /** The state file of a run is keyed by the instance, workspace, target folder and the arguments' absolute paths. */
  static pathFor(parts: { url: string; workspaceId: number; folderId: number | undefined; args: string[] }): string {
    const key = createHash('sha256')
      .update(JSON.stringify([parts.url, parts.workspaceId, parts.folderId ?? null, parts.args.map((a) => path.resolve(a))]))
      .digest('hex')
      .slice(0, 24);
    return path.join(configDir(), 'uploads', `${key}.jsonl`);
  }

  static load(file: string): UploadState {
    const state = new UploadState(file);
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      let entry: Entry;
      try {
        entry = JSON.parse(line) as Entry;
      } catch {
        continue; // the line a kill cut short
      }
      state.apply(entry);
    }
    return state;
  }

  get resuming(): boolean {
    return this.open.size > 0 || this.done.size > 0;
  }

  private apply(entry: Entry): void {
    if (entry.t === 'folder') this.folders.set(entry.key, entry.id);
    else if (entry.t === 'open') this.open.set(entry.file, { size: entry.size, mtimeMs: entry.mtimeMs, upload: entry.upload });
    else if (entry.t === 'sending') this.sending.set(entry.file, { size: entry.size, mtimeMs: entry.mtimeMs, key: entry.key });
    else if (entry.t === 'done') {
      this.open.delete(entry.file);
      this.sending.delete(entry.file);
      this.done.set(entry.file, { size: entry.size, mtimeMs: entry.mtimeMs, assetId: entry.assetId });
    }
  }

  private append(entry: Entry): void {
    this.apply(entry);
    mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    appendFileSync(this.file, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
  }

  folder(key: string, id: number): void {
    this.append({ t: 'folder', key, id });
  }

  opened(file: string, size: number, mtimeMs: number, upload: OpenUpload): void {
    this.append({ t: 'open', file, size, mtimeMs, upload });
  }

  sendingWhole(file: string, size: number, mtimeMs: number, key: string): void {
    this.append({ t: 'sending', file, size, mtimeMs, key });
  }

  finished(file: string, size: number, mtimeMs: number, assetId: number): void {
    this.append({ t: 'done', file, size, mtimeMs, assetId });
  }

  /** After a run with nothing failed: the next run starts afresh (and skips what it uploaded as duplicates). */
  remove(): void {
    rmSync(this.file, { force: true });
  }
}
