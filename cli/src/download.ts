import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { Dam, OperationAnswer } from '../../sdk/src/index.js';
import { listChildFolders } from './folders.js';
import { runPool } from './pool.js';
import { searchAll } from './search.js';
import { CliError, requireDam } from './session.js';

export interface DownloadCommandOptions {
  asset?: number[];
  folder?: number;
  search?: string;
  filter?: string;
  workspace?: number;
  out: string;
  zip: boolean;
  concurrency: number;
}

interface Target {
  assetId: number;
  name: string;
  dir: string;
}

/** A name safe as one path segment on any OS: no separators, control characters, or `.`/`..`. */
export function safeName(name: string): string {
  // eslint-disable-next-line no-control-regex
  const cleaned = name.replace(/[/\\\u0000-\u001f\u007f]/g, '_').replace(/^\.+$/, '_').slice(0, 255);
  return cleaned.trim() === '' ? '_' : cleaned;
}

/** Names made unique per directory, ignoring case (a case-insensitive disk would merge them): "a (2).jpg". */
function uniquePaths(targets: Target[]): string[] {
  const used = new Set<string>();
  return targets.map((t) => {
    const ext = path.extname(t.name);
    const stem = t.name.slice(0, t.name.length - ext.length);
    let candidate = path.join(t.dir, t.name);
    for (let n = 2; used.has(candidate.toLowerCase()); n++) candidate = path.join(t.dir, `${stem} (${n})${ext}`);
    used.add(candidate.toLowerCase());
    return candidate;
  });
}

type AssetItem = OperationAnswer<'listAssets'>['data']['items'][number];

async function folderAssets(dam: Dam, workspaceId: number, folderId: number): Promise<AssetItem[]> {
  const items: AssetItem[] = [];
  for (let page = 1; ; page++) {
    const { data, response } = await dam.api.GET('/dam/assets', { params: { query: { workspaceId, folder_id: folderId, per_page: 250, page } } });
    if (!data) throw new CliError(`listing the assets of folder ${folderId}: ${response.status}`);
    items.push(...data.data.items);
    if (items.length >= data.data.total || data.data.items.length === 0) return items;
  }
}

/** A folder's files and, as directories, its sub-folders', all the way down. */
async function folderTargets(dam: Dam, workspaceId: number, folderId: number, dir: string): Promise<Target[]> {
  const targets = (await folderAssets(dam, workspaceId, folderId)).map((a) => ({ assetId: a.id, name: safeName(a.display_file_name), dir }));
  for (const child of await listChildFolders(dam, workspaceId, folderId)) {
    targets.push(...(await folderTargets(dam, workspaceId, child.id, path.join(dir, safeName(child.name)))));
  }
  return targets;
}

async function folderOf(dam: Dam, id: number): Promise<OperationAnswer<'getFolder'>['data']> {
  const { data, response } = await dam.api.GET('/dam/folders/{id}', { params: { path: { id } } });
  if (!data) throw new CliError(`folder ${id}: ${response.status === 404 ? 'not found (or not in a workspace of yours)' : response.status}`);
  return data.data;
}

/** GET /zip/download of the folder, streamed to OUT/<folder name>.zip. */
async function downloadZip(dam: Dam, session: { url: string; token: string }, folderId: number, out: string): Promise<number> {
  const folder = await folderOf(dam, folderId);
  const url = new URL(`${session.url}/zip/download`);
  url.search = new URLSearchParams({ workspaceId: String(folder.workspace_id), folder_id: String(folderId) }).toString();
  const response = await fetch(url, { headers: { authorization: `Bearer ${session.token}` } });
  if (!response.ok || !response.body) throw new CliError(`zip download of folder ${folderId}: ${response.status} ${await response.text()}`);
  await mkdir(out, { recursive: true });
  const file = path.join(out, `${safeName(folder.name)}.zip`);
  await pipeline(Readable.fromWeb(response.body as NodeReadableStream), createWriteStream(file));
  process.stdout.write(`downloaded ${file}\n`);
  return 0;
}

/** `dam download`: assets, a folder (as a directory tree, or one ZIP) or the hits of a search, into --out. */
export async function downloadCommand(options: DownloadCommandOptions): Promise<number> {
  const chosen = [options.asset?.length, options.folder, options.search].filter((x) => x !== undefined).length;
  if (chosen !== 1) throw new CliError('name exactly one of --asset, --folder or --search');
  const { dam, session } = await requireDam();
  const out = path.resolve(options.out);
  if (options.zip) {
    if (options.folder === undefined) throw new CliError('--zip downloads a --folder');
    return downloadZip(dam, session, options.folder, out);
  }

  let targets: Target[] = [];
  if (options.asset) {
    for (const id of options.asset) {
      const { data, response } = await dam.api.GET('/dam/assets/{id}', { params: { path: { id } } });
      if (!data) throw new CliError(`asset ${id}: ${response.status === 404 ? 'not found (or not in a workspace of yours)' : response.status}`);
      targets.push({ assetId: id, name: safeName(data.data.display_file_name), dir: out });
    }
  } else if (options.folder !== undefined) {
    const folder = await folderOf(dam, options.folder);
    targets = await folderTargets(dam, folder.workspace_id, options.folder, path.join(out, safeName(folder.name)));
  } else {
    const hits = await searchAll(dam, { q: options.search!, filter: options.filter, workspace: options.workspace, limit: 100_000 });
    targets = hits.map((d) => ({ assetId: Number(d.id), name: safeName(d.display_file_name), dir: out }));
  }

  const paths = uniquePaths(targets);
  let failed = 0;
  await runPool(
    targets.map((t, i) => ({ t, file: paths[i]! })),
    Math.max(1, options.concurrency),
    async ({ t, file }) => {
      try {
        await mkdir(path.dirname(file), { recursive: true });
        const bytes = await dam.downloadToFile(t.assetId, file);
        process.stdout.write(`downloaded ${path.relative(process.cwd(), file) || file} (asset ${t.assetId}, ${bytes} bytes)\n`);
      } catch (err) {
        failed += 1;
        process.stdout.write(`failed   asset ${t.assetId} -> ${file}: ${(err as Error).message}\n`);
      }
    },
  );
  process.stdout.write(`downloaded: ${targets.length - failed} files, failed: ${failed}\n`);
  return failed > 0 ? 1 : 0;
}
