import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DriveOAuthClientConfig } from '../../src/config.js';
import { FakeOAuth, listen, readBody, sendJson, type FakeAccount } from './fake-oauth.js';

/**
 * A stand-in for Google Drive on 127.0.0.1 speaking its documented wire format:
 * - OAuth (fake-oauth.ts) at /o/oauth2/v2/auth (access_type=offline required; `iss` in the answer as Google
 *   sends it), /token, /revoke.
 * - Drive API v3 under `apiPrefix` (default none; tests may set one to check base URLs with a path):
 *   GET /drive/v3/about; GET /drive/v3/files (q: `'<id>' in parents`, `name contains '...'`, `trashed = false`;
 *   orderBy folder first then name; pageSize up to 1000; nextPageToken); GET /drive/v3/files/{id} (metadata, or
 *   the bytes with alt=media: Google documents answer 403 fileNotDownloadable); GET /drive/v3/files/{id}/export;
 *   POST /upload/drive/v3/files uploadType=multipart|media|resumable and PUT session chunks with Content-Range
 *   (308 Resume Incomplete with Range, every chunk but the last a multiple of 256 KiB).
 * - Every API call needs a live bearer token: 401 with Google's UNAUTHENTICATED envelope otherwise.
 * - `failures`: answers to give instead, matched by method and path (429 with Retry-After, 5xx, 403 reasons).
 * Sizes are strings, as Drive's JSON has them (int64).
 */
export interface FakeFile {
  id: string;
  name: string;
  mimeType: string;
  parents: string[];
  content: Buffer | null;
  modifiedTime: string;
  headRevisionId: string | null;
  version: number;
  trashed: boolean;
}

export interface Failure {
  method?: string;
  /** Matched against the path after the API prefix, e.g. /drive/v3/files/abc. */
  path: RegExp;
  /** Also matched against the query string when set (e.g. /alt=media/). */
  query?: RegExp;
  status: number;
  message?: string;
  reason?: string;
  retryAfter?: string;
  /** How many requests it answers (default 1). */
  times?: number;
}

export interface UploadRecord {
  kind: 'multipart' | 'media' | 'resumable';
  fileId: string;
  size: number;
  sha256: string;
  /** PUTs of a resumable session, status queries included. */
  puts: number;
}

const FOLDER = 'application/vnd.google-apps.folder';
const CHUNK_GRANULE = 256 * 1024;
const EXPORTS: Record<string, string[]> = {
  'application/vnd.google-apps.document': ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'application/pdf'],
  'application/vnd.google-apps.spreadsheet': ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'application/pdf'],
  'application/vnd.google-apps.presentation': ['application/vnd.openxmlformats-officedocument.presentationml.presentation', 'application/pdf'],
  'application/vnd.google-apps.drawing': ['application/pdf', 'image/png'],
};

function googleError(res: ServerResponse, status: number, message: string, reason: string, headers: Record<string, string> = {}): void {
  const statusText: Record<number, string> = { 400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 429: 'RESOURCE_EXHAUSTED' };
  sendJson(res, status, { error: { code: status, message, errors: [{ message, domain: 'global', reason }], status: statusText[status] ?? 'UNAVAILABLE' } }, headers);
}

/** A Drive query string literal back to its text. */
const unquote = (literal: string) => literal.slice(1, -1).replace(/\\(.)/g, '$1');

export class FakeGoogleDrive {
  readonly oauth: FakeOAuth;
  readonly files = new Map<string, FakeFile>();
  failures: Failure[] = [];
  readonly uploads: UploadRecord[] = [];
  /**
   * Thumbnails served by this fake (the web client's browser test shows them through the image proxy): image files
   * get a thumbnailLink to GET /thumb/{id}=s220 here, which answers the file's own bytes without a token, as
   * Google's thumbnail host does for a fresh link. Off: every file with bytes links to an unreachable https host.
   */
  servesThumbnails = false;
  /** Every API request: method, path, query. */
  readonly requests: { method: string; path: string; query: string }[] = [];
  private readonly sessions = new Map<string, { meta: FakeFile; size: number; chunks: Buffer[]; received: number; puts: number }>();
  /** Set by start(). */
  baseUrl = '';
  close: () => Promise<void> = () => Promise.resolve();

  constructor(
    readonly apiPrefix: string,
    clientSecret: string,
  ) {
    this.oauth = new FakeOAuth({
      clientSecret,
      authorizePath: '/o/oauth2/v2/auth',
      tokenPath: '/token',
      revokePath: '/revoke',
      issuer: 'https://accounts.google.com',
      requiredParams: { access_type: 'offline' },
      callbackParams: { authuser: '0', prompt: 'consent' },
    });
    this.files.set('root', this.make({ id: 'root', name: 'My Drive', mimeType: FOLDER, parents: [] }));
  }

  /** The app's drives.google config pointing at this fake. */
  get config(): DriveOAuthClientConfig {
    return {
      clientId: this.oauth.clientId,
      clientSecret: this.oauth.clientSecret,
      authorizeUrl: this.baseUrl,
      tokenUrl: this.baseUrl,
      apiUrl: `${this.baseUrl}${this.apiPrefix}`,
    };
  }

  addFolder(name: string, parent = 'root'): string {
    return this.add({ name, mimeType: FOLDER, parents: [parent] }).id;
  }

  addFile(name: string, content: Buffer | string, options: { parent?: string; mimeType?: string } = {}): string {
    return this.add({ name, mimeType: options.mimeType ?? 'application/octet-stream', parents: [options.parent ?? 'root'], content: Buffer.from(content) }).id;
  }

  /** A Google document (no bytes of its own; exported on download). */
  addDoc(name: string, kind: 'document' | 'spreadsheet' | 'presentation' | 'drawing' | 'form', parent = 'root'): string {
    return this.add({ name, mimeType: `application/vnd.google-apps.${kind}`, parents: [parent] }).id;
  }

  /** New content: a new head revision (and version), as an edit in Drive makes. */
  updateFile(id: string, content: Buffer | string): void {
    const file = this.files.get(id)!;
    file.content = Buffer.from(content);
    file.headRevisionId = `rev-${randomBytes(6).toString('hex')}`;
    file.version += 1;
    file.modifiedTime = new Date().toISOString();
  }

  private add(values: Partial<FakeFile> & Pick<FakeFile, 'name' | 'mimeType' | 'parents'>): FakeFile {
    const file = this.make({ id: randomBytes(16).toString('base64url'), ...values });
    this.files.set(file.id, file);
    return file;
  }

  private make(values: Partial<FakeFile> & Pick<FakeFile, 'id' | 'name' | 'mimeType' | 'parents'>): FakeFile {
    const binary = !values.mimeType.startsWith('application/vnd.google-apps.');
    return {
      content: null,
      modifiedTime: new Date().toISOString(),
      headRevisionId: binary ? `rev-${randomBytes(6).toString('hex')}` : null,
      version: 1,
      trashed: false,
      ...values,
    };
  }

  private json(file: FakeFile): Record<string, unknown> {
    const binary = !file.mimeType.startsWith('application/vnd.google-apps.');
    return {
      kind: 'drive#file',
      id: file.id,
      name: file.name,
      mimeType: file.mimeType,
      parents: file.parents,
      modifiedTime: file.modifiedTime,
      version: String(file.version),
      trashed: file.trashed,
      ...(binary && file.content
        ? {
            size: String(file.content.length),
            headRevisionId: file.headRevisionId,
            md5Checksum: createHash('md5').update(file.content).digest('hex'),
            ...(this.servesThumbnails
              ? file.mimeType.startsWith('image/')
                ? { thumbnailLink: `${this.baseUrl}/thumb/${file.id}=s220` }
                : {}
              : { thumbnailLink: `https://lh3.googleusercontent.example/thumb/${file.id}=s220` }),
          }
        : {}),
    };
  }

  async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (await this.oauth.handle(req, res, url.pathname, url)) return;
    const thumb = this.servesThumbnails && req.method === 'GET' ? /^\/thumb\/([^/=]+)=s\d+$/.exec(url.pathname) : null;
    if (thumb) {
      const file = this.files.get(thumb[1]!);
      if (!file?.content || !file.mimeType.startsWith('image/')) return googleError(res, 404, 'Not Found', 'notFound');
      res.writeHead(200, { 'content-type': file.mimeType, 'content-length': String(file.content.length) });
      res.end(file.content);
      return;
    }
    if (!url.pathname.startsWith(this.apiPrefix)) return googleError(res, 404, 'Not Found', 'notFound');
    const path = url.pathname.slice(this.apiPrefix.length);
    const method = req.method ?? 'GET';
    this.requests.push({ method, path, query: url.search });
    const failure = this.failures.find((f) => (!f.method || f.method === method) && f.path.test(path) && (!f.query || f.query.test(url.search)));
    if (failure) {
      failure.times = (failure.times ?? 1) - 1;
      if (failure.times <= 0) this.failures.splice(this.failures.indexOf(failure), 1);
      await readBody(req);
      return googleError(res, failure.status, failure.message ?? `Fake failure ${failure.status}`, failure.reason ?? 'backendError', failure.retryAfter ? { 'retry-after': failure.retryAfter } : {});
    }
    // The session URI authorises its own chunks (Drive's resumable protocol), no bearer token.
    if (method === 'PUT' && path === '/upload/drive/v3/files' && url.searchParams.get('upload_id')) return this.putChunk(req, res, url.searchParams.get('upload_id')!);
    const account = this.oauth.authenticate(req.headers.authorization);
    if (!account) {
      await readBody(req);
      return googleError(res, 401, 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.', 'authError');
    }
    if (method === 'GET' && path === '/drive/v3/about') return this.about(res, account);
    if (method === 'GET' && path === '/drive/v3/files') return this.list(res, url.searchParams);
    const get = /^\/drive\/v3\/files\/([^/]+)(\/export)?$/.exec(path);
    if (method === 'GET' && get) return this.get(res, decodeURIComponent(get[1]!), Boolean(get[2]), url.searchParams);
    if (method === 'POST' && path === '/upload/drive/v3/files') return this.upload(req, res, url);
    return googleError(res, 404, `No route ${method} ${path}`, 'notFound');
  }

  private about(res: ServerResponse, account: FakeAccount): void {
    sendJson(res, 200, { user: { kind: 'drive#user', displayName: account.name, emailAddress: account.email, permissionId: account.id, me: true } });
  }

  private list(res: ServerResponse, q: URLSearchParams): void {
    const query = q.get('q') ?? '';
    const parent = /'((?:[^'\\]|\\.)*)' in parents/.exec(query);
    const contains = /name contains ('(?:[^'\\]|\\.)*')/.exec(query);
    const folder = parent ? unquote(`'${parent[1]}'`) : null;
    const name = contains ? unquote(contains[1]!).toLowerCase() : null;
    const matches = [...this.files.values()]
      .filter((f) => f.id !== 'root' && (!/trashed = false/.test(query) || !f.trashed))
      .filter((f) => folder === null || f.parents.includes(folder))
      .filter((f) => name === null || f.name.toLowerCase().includes(name))
      .sort((a, b) => Number(b.mimeType === FOLDER) - Number(a.mimeType === FOLDER) || a.name.localeCompare(b.name, 'en', { numeric: true }));
    const size = Math.min(Number(q.get('pageSize') ?? 100), 1000);
    const offset = q.get('pageToken') ? Number(Buffer.from(q.get('pageToken')!, 'base64url').toString().split(':')[1]) : 0;
    const page = matches.slice(offset, offset + size);
    const more = offset + size < matches.length;
    sendJson(res, 200, {
      kind: 'drive#fileList',
      incompleteSearch: false,
      files: page.map((f) => this.json(f)),
      ...(more ? { nextPageToken: Buffer.from(`${randomBytes(4).toString('hex')}:${offset + size}`).toString('base64url') } : {}),
    });
  }

  private get(res: ServerResponse, id: string, exporting: boolean, q: URLSearchParams): void {
    const file = this.files.get(id);
    if (!file || file.trashed) return googleError(res, 404, `File not found: ${id}.`, 'notFound');
    if (exporting) {
      const to = q.get('mimeType') ?? '';
      if (!(EXPORTS[file.mimeType] ?? []).includes(to)) return googleError(res, 400, 'The requested conversion is not supported.', 'badRequest');
      const bytes = Buffer.from(`exported ${file.name} as ${to} (version ${file.version})`);
      res.writeHead(200, { 'content-type': to, 'content-length': String(bytes.length) });
      res.end(bytes);
      return;
    }
    if (q.get('alt') !== 'media') return sendJson(res, 200, this.json(file));
    if (!file.content) return googleError(res, 403, 'Only files with binary content can be downloaded. Use Export with Docs Editors files.', 'fileNotDownloadable');
    res.writeHead(200, { 'content-type': file.mimeType, 'content-length': String(file.content.length) });
    res.end(file.content);
  }

  private async upload(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const type = url.searchParams.get('uploadType');
    const body = await readBody(req);
    if (type === 'resumable') {
      const meta = JSON.parse(body.toString('utf8') || '{}') as { name?: string; mimeType?: string; parents?: string[] };
      const size = Number(req.headers['x-upload-content-length']);
      const file = this.make({ id: randomBytes(16).toString('base64url'), name: meta.name ?? 'Untitled', mimeType: String(req.headers['x-upload-content-type'] ?? meta.mimeType ?? 'application/octet-stream'), parents: meta.parents ?? ['root'] });
      const uploadId = randomBytes(12).toString('base64url');
      this.sessions.set(uploadId, { meta: file, size, chunks: [], received: 0, puts: 0 });
      const location = new URL(`${this.baseUrl}${this.apiPrefix}/upload/drive/v3/files`);
      location.search = new URLSearchParams({ uploadType: 'resumable', upload_id: uploadId }).toString();
      res.writeHead(200, { location: location.toString(), 'content-length': '0' });
      res.end();
      return;
    }
    if (type === 'multipart') {
      const boundary = /boundary=([^;]+)/.exec(String(req.headers['content-type']))?.[1];
      if (!boundary) return googleError(res, 400, 'Missing multipart boundary', 'badContent');
      const parts = splitMultipart(body, boundary);
      if (parts.length !== 2) return googleError(res, 400, `Expected 2 parts, got ${parts.length}`, 'badContent');
      const meta = JSON.parse(parts[0]!.body.toString('utf8')) as { name?: string; mimeType?: string; parents?: string[] };
      const file = this.make({ id: randomBytes(16).toString('base64url'), name: meta.name ?? 'Untitled', mimeType: meta.mimeType ?? parts[1]!.type, parents: meta.parents ?? ['root'], content: parts[1]!.body });
      return this.created(res, file, 'multipart', 1);
    }
    return googleError(res, 400, `Unsupported uploadType ${type}`, 'badRequest');
  }

  private async putChunk(req: IncomingMessage, res: ServerResponse, uploadId: string): Promise<void> {
    const session = this.sessions.get(uploadId);
    const body = await readBody(req);
    if (!session) return googleError(res, 404, 'Upload session not found', 'notFound');
    session.puts += 1;
    const range = String(req.headers['content-range'] ?? '');
    const status = /^bytes \*\/(\d+)$/.exec(range);
    const chunk = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(range);
    if (status) return this.incomplete(res, session.received);
    if (!chunk) return googleError(res, 400, `Bad Content-Range: ${range}`, 'badRequest');
    const [start, end, total] = [Number(chunk[1]), Number(chunk[2]), Number(chunk[3])];
    if (total !== session.size || end - start + 1 !== body.length) return googleError(res, 400, 'Content-Range does not match the body', 'badRequest');
    if (start !== session.received) return this.incomplete(res, session.received);
    if (end + 1 < total && body.length % CHUNK_GRANULE !== 0) return googleError(res, 400, 'Chunks must be multiples of 256 KiB', 'badRequest');
    session.chunks.push(body);
    session.received += body.length;
    if (session.received < session.size) return this.incomplete(res, session.received);
    this.sessions.delete(uploadId);
    return this.created(res, { ...session.meta, content: Buffer.concat(session.chunks) }, 'resumable', session.puts);
  }

  private incomplete(res: ServerResponse, received: number): void {
    res.writeHead(308, { ...(received > 0 ? { range: `bytes=0-${received - 1}` } : {}), 'content-length': '0' });
    res.end();
  }

  private created(res: ServerResponse, file: FakeFile, kind: UploadRecord['kind'], puts: number): void {
    this.files.set(file.id, file);
    const content = file.content ?? Buffer.alloc(0);
    this.uploads.push({ kind, fileId: file.id, size: content.length, sha256: createHash('sha256').update(content).digest('hex'), puts });
    sendJson(res, 200, this.json(file));
  }
}

function splitMultipart(body: Buffer, boundary: string): { type: string; body: Buffer }[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: { type: string; body: Buffer }[] = [];
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const next = body.indexOf(delimiter, at + delimiter.length);
    if (next < 0) break;
    const part = body.subarray(at + delimiter.length, next);
    const headerEnd = part.indexOf('\r\n\r\n');
    if (headerEnd >= 0) {
      const headers = part.subarray(0, headerEnd).toString('utf8');
      let content = part.subarray(headerEnd + 4);
      if (content.subarray(content.length - 2).toString() === '\r\n') content = content.subarray(0, content.length - 2);
      parts.push({ type: /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1]?.trim() ?? 'application/octet-stream', body: content });
    }
    at = next;
  }
  return parts;
}

export async function startFakeGoogleDrive(options: { apiPrefix?: string } = {}): Promise<FakeGoogleDrive> {
  const fake = new FakeGoogleDrive(options.apiPrefix ?? '', `GOCSPX-${randomBytes(12).toString('base64url')}`);
  const server = await listen((req, res, url) => fake.handle(req, res, url));
  fake.baseUrl = server.baseUrl;
  fake.close = server.close;
  return fake;
}
