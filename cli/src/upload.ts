import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { DamApiError, type Dam, type UploadRef } from '../../sdk/src/index.js';
import { ensureFolders, folderKey } from './folders.js';
import { formatBytes } from './format.js';
import { Batcher } from './batcher.js';
import { limiter, Lookahead, runPool } from './pool.js';
import { createReporter, type Reporter } from './progress.js';
import { CliError, requireDam } from './session.js';
import { UploadState } from './state.js';
import { walk, type LocalFile } from './walk.js';

export interface UploadCommandOptions {
  workspace?: number;
  folder?: number;
  recursive: boolean;
  concurrency: number;
  partSize?: number;
  include: string[];
  exclude: string[];
  dryRun: boolean;
  /** Also hidden files and OS debris (.DS_Store, Thumbs.db, *.tmp) inside directories. */
  includeHidden?: boolean;
  tag: string[];
  state?: string;
  json: boolean;
  /** Bars on stderr; default: when stderr is a terminal and not --json. */
  progress?: boolean;
}

/**
 * Hashes are asked about (check-duplicates) in batches of this many or after this long, whichever comes first: files
 * start uploading as their batch is answered instead of after a read of the whole tree, and a tree of thousands of
 * small files still costs few requests.
 */
const CHECK_BATCH = 100;
const CHECK_WAIT_MS = 250;
/** Files hashed at once: reading is the bottleneck, a few streams keep a disk busy. */
const HASH_CONCURRENCY = 4;
/**
 * How far hashing may run ahead of the uploads (files hashed and not yet sent): bounded so that a file is sent soon
 * after it was read for its hash, while its bytes are still in the page cache, and memory stays flat on huge trees.
 */
const LOOKAHEAD_FILES = 1000;
const LOOKAHEAD_BYTES = 1024 * 1024 * 1024;
/** Parts of one file sent at once; files run --concurrency at a time on top of that. */
const PART_CONCURRENCY = 4;
/**
 * Files up to this size go in one request (POST /api/upload-asset, tags included) rather than the four of the
 * multipart flow (start, part URL, PUT, complete) and a PATCH for tags: for small files the round trips are the cost.
 */
const WHOLE_FILE_MAX = 8 * 1024 * 1024;
/**
 * Larger than the SDK's 8 MiB: the server stores every part durably (fsync) and answers it separately, so fewer,
 * larger parts are faster on loopback and LAN (200 MiB: 5.6 s in 8 MiB parts, 2.9 s in 32 MiB); a failed part
 * costs more to resend, which is rare.
 */
const DEFAULT_PART_SIZE = 32 * 1024 * 1024;

interface Summary {
  uploaded: { path: string; assetId: number }[];
  duplicates: { path: string; assetIds: number[] }[];
  /** Finished by an earlier run of the same command that was interrupted. */
  resumed: { path: string; assetId: number }[];
  failed: { path: string; reason: string }[];
  /** Hidden files and OS debris left out (without --include-hidden). */
  hidden: string[];
  bytesUploaded: number;
  seconds: number;
}

async function sha256File(file: string, signal: AbortSignal): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file, { highWaterMark: 1024 * 1024 }), hash, { signal });
  return hash.digest('hex');
}

/** The hashes of one batch that the workspace already has (the current file of a listed asset). */
async function knownHashes(dam: Dam, workspaceId: number, hashes: string[]): Promise<Map<string, number[]>> {
  const known = new Map<string, number[]>();
  const { data, error, response } = await dam.api.POST('/dam/assets/check-duplicates', { body: { workspaceId, hashes: [...new Set(hashes)] } });
  if (!data) throw new CliError(`check-duplicates: ${response.status} ${describe(error)}`);
  for (const d of data.data.duplicates) known.set(d.sha256, d.asset_ids);
  return known;
}

function describe(error: unknown): string {
  const message = (error as { error?: unknown } | undefined)?.error;
  return typeof message === 'string' ? message : 'no message';
}

/** The workspace of --folder when --workspace is not given; both given must agree. */
async function resolveTarget(dam: Dam, options: UploadCommandOptions): Promise<number> {
  if (options.folder !== undefined) {
    const { data, response } = await dam.api.GET('/dam/folders/{id}', { params: { path: { id: options.folder } } });
    if (!data) throw new CliError(`folder ${options.folder}: ${response.status === 404 ? 'not found (or not in a workspace of yours)' : response.status}`);
    if (options.workspace !== undefined && data.data.workspace_id !== options.workspace) {
      throw new CliError(`folder ${options.folder} is in workspace ${data.data.workspace_id}, not ${options.workspace}`);
    }
    return data.data.workspace_id;
  }
  if (options.workspace === undefined) throw new CliError('--workspace (or --folder) is required: dam workspaces lists yours');
  const { data, response } = await dam.api.GET('/workspaces/{id}', { params: { path: { id: options.workspace } } });
  if (!data) throw new CliError(`workspace ${options.workspace}: ${response.status === 404 ? 'not found (or not a member)' : response.status}`);
  return options.workspace;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * `dam upload`: lists the files, skips what an interrupted run of the same command finished, and runs the rest
 * through a pipeline: files are hashed a few at a time, their hashes asked about in batches as they become ready
 * (check-duplicates), and each file that the server does not have starts uploading (its directories made as folders
 * first) as soon as its batch is answered, --concurrency at a time. Hashing and uploading so overlap, and the first
 * byte is sent after one batch rather than after a read of the whole tree. Returns the exit code: 1 when any file failed.
 */
export async function uploadCommand(args: string[], options: UploadCommandOptions): Promise<number> {
  const began = Date.now();
  const { dam, session } = await requireDam();
  const workspaceId = await resolveTarget(dam, options);
  const tty = options.progress ?? (process.stderr.isTTY === true && !options.json);
  const reporter = createReporter({ tty, quiet: options.json });

  const listed = await walk(args, { recursive: options.recursive, include: options.include, exclude: options.exclude, includeHidden: options.includeHidden });
  const summary: Summary = {
    uploaded: [],
    duplicates: [],
    resumed: [],
    failed: [...listed.failed.map((f) => ({ path: f.display, reason: f.reason }))],
    hidden: listed.hidden,
    bytesUploaded: 0,
    seconds: 0,
  };
  for (const f of listed.failed) reporter.event(`failed   ${f.display}: ${f.reason}`, true);

  const statePath = options.state ? path.resolve(options.state) : UploadState.pathFor({ url: session.url, workspaceId, folderId: options.folder, args });
  const state = UploadState.load(statePath);
  const same = (f: LocalFile, r: { size: number; mtimeMs: number } | undefined) => r !== undefined && r.size === f.size && r.mtimeMs === f.mtimeMs;

  const pending: LocalFile[] = [];
  for (const f of listed.files) {
    const done = state.done.get(f.abs);
    if (same(f, done)) summary.resumed.push({ path: f.display, assetId: done!.assetId });
    else pending.push(f);
  }
  if (summary.resumed.length > 0) reporter.event(`resuming: ${summary.resumed.length} files were uploaded by the interrupted run (${statePath})`);

  // Files with an open upload of an interrupted run continue it without a hash; the others are checked against the library.
  const order = new Map(pending.map((f, i) => [f, i]));
  const resuming = pending.filter((f) => same(f, state.open.get(f.abs)));
  const toHash = pending.filter((f) => !same(f, state.open.get(f.abs)));

  // Stops the run on the user's Ctrl-C, or when a batch cannot be checked (then `fatal` is thrown at the end).
  const controller = new AbortController();
  const signal = controller.signal;
  let interrupted = false;
  let fatal: { error: unknown } | undefined;
  const onSignal = () => {
    interrupted = true;
    controller.abort(new CliError('interrupted'));
  };
  if (!options.dryRun) {
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    reporter.start(pending.length, pending.reduce((n, f) => n + f.size, 0));
  }

  const lookahead = new Lookahead(LOOKAHEAD_FILES, LOOKAHEAD_BYTES);
  const folders = new Map<string, number | Error>();
  const limit = limiter(Math.max(1, options.concurrency));
  const uploads: Promise<void>[] = [];
  let queued = 0;

  /** Makes the folders of these files that no earlier batch made (one batch at a time, so never twice). */
  const makeFolders = async (files: LocalFile[]) => {
    const chains = files.map((f) => f.dirs).filter((d) => d.length > 0 && !folders.has(folderKey(d)));
    if (chains.length === 0) return;
    for (const [key, id] of await ensureFolders(dam, state, workspaceId, options.folder ?? null, chains)) folders.set(key, id);
  };

  const upload = async (f: LocalFile) => {
    try {
      if (signal.aborted) return;
      const folder = f.dirs.length ? folders.get(folderKey(f.dirs)) : (options.folder ?? null);
      const bar = reporter.file(f.display, f.size);
      try {
        if (folder instanceof Error) throw folder;
        const target = { workspaceId, folderId: folder ?? undefined, partSize: options.partSize, signal };
        const whole = f.size <= WHOLE_FILE_MAX && !state.open.has(f.abs);
        const assetId = whole ? await uploadSmall(dam, state, f, target, options.tag) : await uploadOne(dam, state, f, target, (loaded) => bar.update(loaded));
        if (!whole && options.tag.length > 0) {
          const { error, response } = await dam.api.PATCH('/dam/assets/{id}', { params: { path: { id: assetId } }, body: { tags: options.tag } });
          if (!response.ok) throw new Error(`uploaded as asset ${assetId}, but tagging failed: ${response.status} ${describe(error)}`);
        }
        state.finished(f.abs, f.size, f.mtimeMs, assetId);
        summary.uploaded.push({ path: f.display, assetId });
        summary.bytesUploaded += f.size;
        reporter.event(`uploaded ${f.display} -> asset ${assetId}`);
      } catch (err) {
        if (signal.aborted) return;
        summary.failed.push({ path: f.display, reason: message(err) });
        reporter.event(`failed   ${f.display}: ${message(err)}`, true);
      } finally {
        bar.end();
        reporter.settled(f.size);
      }
    } finally {
      lookahead.leave(f.size);
    }
  };

  /** Files ready to go (hashed and not duplicates, or resuming): uploaded, or listed on --dry-run. */
  const send = async (files: LocalFile[]) => {
    if (options.dryRun) {
      for (const f of files) {
        reporter.event(`would upload ${f.display} (${formatBytes(f.size)})${f.dirs.length ? ` into folder ${f.dirs.join('/')}` : ''}`);
        lookahead.leave(f.size);
      }
      queued += files.length;
      return;
    }
    await makeFolders(files);
    queued += files.length;
    for (const f of files) uploads.push(limit(() => upload(f)));
  };

  const batcher = new Batcher<{ file: LocalFile; hash: string }>(
    CHECK_BATCH,
    CHECK_WAIT_MS,
    async (batch) => {
      if (signal.aborted) throw signal.reason;
      const known = await knownHashes(dam, workspaceId, batch.map((b) => b.hash));
      const fresh: LocalFile[] = [];
      // In the order of the listing, as a run that hashed everything first would send them.
      for (const { file: f, hash } of batch.sort((x, y) => order.get(x.file)! - order.get(y.file)!)) {
        const duplicateOf = known.get(hash);
        if (!duplicateOf) {
          fresh.push(f);
          continue;
        }
        summary.duplicates.push({ path: f.display, assetIds: duplicateOf });
        reporter.event(`skipped  ${f.display}: duplicate of asset ${duplicateOf.join(', ')}`);
        reporter.dropped(f.size);
        lookahead.leave(f.size);
      }
      await send(fresh);
    },
    {
      onError: (error) => {
        if (interrupted) return;
        fatal ??= { error };
        controller.abort(error);
      },
      skip: (batch) => {
        for (const { file } of batch) lookahead.leave(file.size);
      },
    },
  );

  for (const f of resuming) await lookahead.enter(f.size);
  await send(resuming);
  await runPool(toHash, HASH_CONCURRENCY, async (f) => {
    if (signal.aborted) return;
    await lookahead.enter(f.size);
    let hash: string;
    try {
      hash = await sha256File(f.abs, signal);
    } catch (err) {
      lookahead.leave(f.size);
      if (signal.aborted) return;
      summary.failed.push({ path: f.display, reason: `cannot read: ${message(err)}` });
      reporter.event(`failed   ${f.display}: cannot read: ${message(err)}`, true);
      if (!options.dryRun) reporter.dropped(f.size);
      return;
    }
    batcher.add({ file: f, hash });
  });
  await batcher.close().catch(() => undefined); // a failure is in `fatal`, thrown below once the uploads have stopped
  await Promise.all(uploads);

  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  summary.seconds = (Date.now() - began) / 1000;
  if (interrupted) {
    reporter.stop();
    process.stderr.write(`interrupted: run the same command again to resume (${statePath})\n`);
    return 130;
  }
  if (fatal) {
    reporter.stop();
    throw fatal.error;
  }
  return finish(summary, options, reporter, { dryRun: options.dryRun, queued, state: options.dryRun ? undefined : state });
}

/** A small file in one request; its Idempotency-Key is recorded first, so a resumed run sending it again gets the same asset. */
async function uploadSmall(
  dam: Dam,
  state: UploadState,
  f: LocalFile,
  o: { workspaceId: number; folderId: number | undefined; signal: AbortSignal },
  tags: string[],
): Promise<number> {
  const earlier = state.sending.get(f.abs);
  let key = earlier && earlier.size === f.size && earlier.mtimeMs === f.mtimeMs ? earlier.key : undefined;
  if (!key) {
    key = randomUUID();
    state.sendingWhole(f.abs, f.size, f.mtimeMs, key);
  }
  const { assetId } = await dam.uploadWhole(f.abs, {
    workspaceId: o.workspaceId,
    folderId: o.folderId,
    name: path.basename(f.abs),
    idempotencyKey: key,
    signal: o.signal,
    ...(tags.length > 0 && { tags }),
  });
  return assetId;
}

/**
 * One file: continues the interrupted run's upload of it when there is one (the parts the server has are not sent
 * again); an upload the server no longer has was either completed just before the interruption (its asset exists,
 * with this size: nothing to send) or has expired (a new one starts).
 */
async function uploadOne(
  dam: Dam,
  state: UploadState,
  f: LocalFile,
  o: { workspaceId: number; folderId: number | undefined; partSize: number | undefined; signal: AbortSignal },
  onLoaded: (loaded: number) => void,
): Promise<number> {
  const base = {
    workspaceId: o.workspaceId,
    folderId: o.folderId,
    name: path.basename(f.abs),
    signal: o.signal,
    concurrency: PART_CONCURRENCY,
    partSize: o.partSize ?? DEFAULT_PART_SIZE,
    onProgress: (p: { loaded: number }) => onLoaded(p.loaded),
  };
  const open = state.open.get(f.abs);
  if (open) {
    if (open.size === f.size && open.mtimeMs === f.mtimeMs) {
      try {
        return (await dam.uploadFile(f.abs, { ...base, resume: open.upload })).assetId;
      } catch (err) {
        if (!(err instanceof DamApiError) || ![400, 404, 409, 410].includes(err.status)) throw err;
        const { data } = await dam.api.GET('/dam/assets/{id}', { params: { path: { id: open.upload.assetId } } });
        if (data && data.data.file_size === f.size) return open.upload.assetId;
      }
    } else {
      // The file changed since: its old upload is given up (it may have expired already).
      await dam.abortUpload({ ...open.upload, workspaceId: o.workspaceId }).catch(() => undefined);
    }
  }
  const onStarted = (ref: UploadRef) => state.opened(f.abs, f.size, f.mtimeMs, { uploadId: ref.uploadId, assetId: ref.assetId, partSize: ref.partSize });
  return (await dam.uploadFile(f.abs, { ...base, onStarted })).assetId;
}

function finish(summary: Summary, options: UploadCommandOptions, reporter: Reporter, run: { dryRun: boolean; queued: number; state: UploadState | undefined }): number {
  reporter.stop();
  const failed = summary.failed.length > 0;
  if (!failed) run.state?.remove();
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ ...summary, dryRun: run.dryRun, ...(run.dryRun && { wouldUpload: run.queued }) }, null, 2)}\n`);
    return failed ? 1 : 0;
  }
  const lines = [
    run.dryRun ? `dry run: ${run.queued} files would be uploaded` : `uploaded: ${summary.uploaded.length} files, ${formatBytes(summary.bytesUploaded)} in ${summary.seconds.toFixed(1)} s`,
    `skipped as duplicate: ${summary.duplicates.length}`,
  ];
  if (summary.resumed.length > 0) lines.push(`already uploaded by the interrupted run: ${summary.resumed.length}`);
  if (summary.hidden.length > 0) lines.push(`skipped as hidden or system files: ${summary.hidden.length} (--include-hidden uploads them)`);
  lines.push(`failed: ${summary.failed.length}`);
  for (const f of summary.failed) lines.push(`  ${f.path}: ${f.reason}`);
  process.stdout.write(`${lines.join('\n')}\n`);
  return failed ? 1 : 0;
}
