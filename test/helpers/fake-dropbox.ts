import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DrivesConfig } from '../../src/config.js';
import { FakeOAuth, listen, readBody, sendJson, type FakeAccount } from './fake-oauth.js';

/**
 * A stand-in for Dropbox on 127.0.0.1 speaking its documented HTTP API v2 wire format:
 * - OAuth (fake-oauth.ts) at /oauth2/authorize (token_access_type=offline required) and /oauth2/token; refresh
 *   tokens are not rotated. No RFC 7009: /2/auth/token/revoke with the bearer token revokes the grant.
 * - The API host under `/dbx/api` (so base URLs with a path are exercised): RPC routes, POST with a JSON body
 *   (Content-Type checked; routes without argument take no body): users/get_current_account,
 *   files/list_folder and list_folder/continue (an opaque cursor per page; `limit` honoured, and `maxPage` answers
 *   fewer, as Dropbox's "approximate" limit may; entries in no particular order), files/search_v2 and
 *   search/continue_v2, files/get_metadata (`id:` or a path; the root is refused), auth/token/revoke.
 * - The content host under `/dbx/content`: the argument in Dropbox-API-Arg (which must be ASCII: JSON with \u
 *   escapes), files/download and files/export (no Content-Type allowed; the result in Dropbox-API-Result),
 *   files/upload and files/upload_session/start, append_v2, finish (application/octet-stream; offsets checked,
 *   `incorrect_offset` with `correct_offset`; missing parent folders created; autorename on conflicts).
 * - 401 `expired_access_token` / `invalid_access_token` for a dead bearer token; 409 endpoint errors
 *   (`path/not_found`, `path/not_file`, `unsupported_file`, `non_exportable`, ...); `failures` answers 429 with
 *   Retry-After, 5xx or any 409 for matching requests, also after an upload-session chunk was stored.
 * Paths are case-insensitive, as at Dropbox.
 */
export interface FakeEntry {
  /** `id:` and 22 URL-safe base64 characters, as Dropbox's. */
  id: string;
  name: string;
  /** The parent folder's id; '' for the root. */
  parent: string;
  folder: boolean;
  content: Buffer;
  rev: string;
  serverModified: string;
  /** False for Paper docs and the like: download answers unsupported_file. */
  downloadable: boolean;
  /** Set with downloadable false: files/export makes this of it (its export_info.export_as). */
  exportAs: string | null;
}

export interface DropboxFailure {
  host?: 'api' | 'content';
  /** Matched against the route, e.g. /^files\/download$/. */
  route: RegExp;
  /** Matched against the parsed argument. */
  arg?: (arg: Record<string, unknown>) => boolean;
  status: number;
  /** error_summary of a JSON error (409s; 429 has its own); without it a 5xx answers plain text. */
  summary?: string;
  error?: unknown;
  message?: string;
  retryAfter?: string;
  /** How many requests it answers (default 1). */
  times?: number;
  /** Upload-session routes: the chunk is stored first, then the failure answered (as if the answer were lost). */
  afterProcessing?: boolean;
}

export interface DropboxUploadRecord {
  kind: 'upload' | 'session';
  id: string;
  path: string;
  size: number;
  sha256: string;
  /** Upload-session requests naming the session (start, appends, finish), failed ones included. */
  requests: number;
  /** Sizes of the chunks stored, in order. */
  chunks: number[];
}

interface Session {
  chunks: Buffer[];
  received: number;
  closed: boolean;
  requests: number;
}

type Cursor = { kind: 'list'; folder: string; offset: number; limit: number } | { kind: 'search'; scope: string; query: string; offset: number; limit: number };

type Json = Record<string, unknown>;

const BLOCK = 4 * 1024 * 1024;

/** Dropbox's content hash: SHA-256 over the SHA-256 of each 4 MiB block. */
function contentHash(content: Buffer): string {
  const outer = createHash('sha256');
  for (let at = 0; at < content.length; at += BLOCK) outer.update(createHash('sha256').update(content.subarray(at, at + BLOCK)).digest());
  return outer.digest('hex');
}

const newId = () => `id:${randomBytes(16).toString('base64url').slice(0, 22)}`;
const newRev = () => `0${randomBytes(7).toString('hex')}`;

/** The same escaping the API asks of Dropbox-API-Arg, for Dropbox-API-Result. */
const headerJson = (value: unknown) => JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** A 409 or 401 of Dropbox: error_summary (with the trailing dots Dropbox varies) and the error union. */
function apiError(res: ServerResponse, status: number, summary: string, error: unknown, headers: Record<string, string> = {}): void {
  sendJson(res, status, { error_summary: `${summary}/..${'.'.repeat(randomBytes(1)[0]! % 3)}`, error }, headers);
}

/** 400s are plain text at Dropbox ("Error in call to API function ..."). */
function badRequest(res: ServerResponse, route: string, message: string): void {
  res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(`Error in call to API function "${route}": ${message}`);
}

const notFound = (res: ServerResponse) => apiError(res, 409, 'path/not_found', { '.tag': 'path', path: { '.tag': 'not_found' } });

export class FakeDropbox {
  readonly oauth: FakeOAuth;
  readonly entries = new Map<string, FakeEntry>();
  failures: DropboxFailure[] = [];
  readonly uploads: DropboxUploadRecord[] = [];
  /** Every API and content request: host, route, argument. */
  readonly requests: { host: 'api' | 'content'; route: string; arg: Json | null }[] = [];
  /** At most this many entries per listing or search page, whatever `limit` asks. */
  maxPage = Number.POSITIVE_INFINITY;
  private readonly cursors = new Map<string, Cursor>();
  private readonly sessions = new Map<string, Session>();
  /** Set by start(). */
  baseUrl = '';
  close: () => Promise<void> = () => Promise.resolve();

  constructor(clientSecret: string | undefined) {
    this.oauth = new FakeOAuth({
      clientId: randomBytes(8).toString('hex').slice(0, 15),
      clientSecret,
      authorizePath: '/oauth2/authorize',
      tokenPath: '/oauth2/token',
      requiredParams: { token_access_type: 'offline' },
      accessTokenTtl: 14_400,
    });
    this.oauth.account = { id: 'dbid:AAH4f99T0taONIb-OurWxbNQ6ywGRopQngc', email: 'franz@example.test', name: 'Franz Ferdinand' };
  }

  /** The app's drives.dropbox config pointing at this fake. */
  get config(): NonNullable<DrivesConfig['dropbox']> {
    return {
      clientId: this.oauth.clientId,
      clientSecret: this.oauth.clientSecret,
      authorizeUrl: this.baseUrl,
      tokenUrl: this.baseUrl,
      apiUrl: `${this.baseUrl}/dbx/api`,
      contentUrl: `${this.baseUrl}/dbx/content`,
    };
  }

  addFolder(name: string, parent = ''): string {
    return this.add({ name, parent, folder: true }).id;
  }

  addFile(name: string, content: Buffer | string, options: { parent?: string; downloadable?: boolean; exportAs?: string } = {}): string {
    return this.add({ name, parent: options.parent ?? '', content: Buffer.from(content), downloadable: options.downloadable ?? true, exportAs: options.exportAs ?? null }).id;
  }

  /** New content: a new rev and content hash, as an edit makes. */
  updateFile(id: string, content: Buffer | string): void {
    const entry = this.entries.get(id)!;
    Object.assign(entry, { content: Buffer.from(content), rev: newRev(), serverModified: new Date().toISOString().replace(/\.\d+Z$/, 'Z') });
  }

  /** A rename keeps the content hash (and so an imported file counts as unchanged). */
  rename(id: string, name: string): void {
    Object.assign(this.entries.get(id)!, { name, rev: newRev() });
  }

  /** `/Folder/file.txt` as displayed. */
  pathOf(id: string): string {
    const names: string[] = [];
    for (let at = this.entries.get(id); at; at = this.entries.get(at.parent)) names.unshift(at.name);
    return `/${names.join('/')}`;
  }

  private add(values: Partial<FakeEntry> & Pick<FakeEntry, 'name' | 'parent'>): FakeEntry {
    const entry: FakeEntry = {
      id: newId(),
      folder: false,
      content: Buffer.alloc(0),
      rev: newRev(),
      serverModified: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      downloadable: true,
      exportAs: null,
      ...values,
    };
    this.entries.set(entry.id, entry);
    return entry;
  }

  private metadata(entry: FakeEntry, tagged = true): Json {
    const path = this.pathOf(entry.id);
    const common = { ...(tagged ? { '.tag': entry.folder ? 'folder' : 'file' } : {}), name: entry.name, path_lower: path.toLowerCase(), path_display: path, id: entry.id };
    if (entry.folder) return common;
    return {
      ...common,
      client_modified: entry.serverModified,
      server_modified: entry.serverModified,
      rev: entry.rev,
      size: entry.content.length,
      is_downloadable: entry.downloadable,
      ...(entry.downloadable ? { content_hash: contentHash(entry.content) } : {}),
      ...(entry.exportAs ? { export_info: { export_as: entry.exportAs, export_options: [entry.exportAs, 'html'] } } : {}),
    };
  }

  /** An id, a path, or '' (the root, where allowed); undefined when nothing is there, null when the argument is malformed. */
  private resolve(path: unknown, rootAllowed: boolean): FakeEntry | 'root' | undefined | null {
    if (typeof path !== 'string') return null;
    if (path === '') return rootAllowed ? 'root' : null;
    if (path.startsWith('id:')) return this.entries.get(path);
    if (!path.startsWith('/')) return null;
    const lower = path.toLowerCase().replace(/\/+$/, '');
    if (lower === '') return rootAllowed ? 'root' : null;
    return [...this.entries.values()].find((e) => this.pathOf(e.id).toLowerCase() === lower);
  }

  private childrenOf(folder: string): FakeEntry[] {
    // Dropbox promises no order; this one is by id, so the app has to sort what it shows.
    return [...this.entries.values()].filter((e) => e.parent === folder).sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  private descendantsOf(folder: string): FakeEntry[] {
    const out: FakeEntry[] = [];
    const queue = [folder];
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      for (const child of this.childrenOf(next)) {
        out.push(child);
        if (child.folder) queue.push(child.id);
      }
    }
    return out;
  }

  private takeFailure(host: 'api' | 'content', route: string, arg: Json | null, after: boolean): DropboxFailure | undefined {
    const failure = this.failures.find(
      (f) => (!f.host || f.host === host) && f.route.test(route) && (!f.arg || (arg !== null && f.arg(arg))) && Boolean(f.afterProcessing) === after,
    );
    if (!failure) return undefined;
    failure.times = (failure.times ?? 1) - 1;
    if (failure.times <= 0) this.failures.splice(this.failures.indexOf(failure), 1);
    return failure;
  }

  private fail(res: ServerResponse, failure: DropboxFailure): void {
    const headers: Record<string, string> = failure.retryAfter ? { 'retry-after': failure.retryAfter } : {};
    if (failure.status === 429) {
      return apiError(res, 429, 'too_many_requests', { reason: { '.tag': 'too_many_requests' }, retry_after: Number(failure.retryAfter ?? 1) }, headers);
    }
    if (failure.summary) return apiError(res, failure.status, failure.summary, failure.error ?? { '.tag': failure.summary.split('/')[0] }, headers);
    res.writeHead(failure.status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
    res.end(failure.message ?? `Fake failure ${failure.status}`);
  }

  async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (await this.oauth.handle(req, res, url.pathname, url)) return;
    const match = /^\/dbx\/(api|content)\/2\/(.+)$/.exec(url.pathname);
    if (!match || req.method !== 'POST') {
      await readBody(req);
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('Not Found');
      return;
    }
    const host = match[1] as 'api' | 'content';
    const route = match[2]!;
    const body = await readBody(req);
    let arg: Json | null = null;
    if (host === 'api') {
      const type = String(req.headers['content-type'] ?? '');
      if (body.length > 0 && !/^application\/json(; ?charset=utf-8)?$/i.test(type)) {
        return badRequest(res, route, `Bad HTTP "Content-Type" header: "${type}".  Expecting one of "application/json", "application/json; charset=utf-8".`);
      }
      const text = body.toString('utf8');
      if (text && text !== 'null') {
        try {
          arg = JSON.parse(text) as Json;
        } catch {
          return badRequest(res, route, 'request body: could not decode input as JSON');
        }
      }
    } else {
      const header = req.headers['dropbox-api-arg'];
      if (typeof header !== 'string') return badRequest(res, route, 'Must provide HTTP header "Dropbox-API-Arg" or URL parameter "arg".');
      // The header arrives as bytes; anything past ASCII must have been escaped as \uXXXX.
      if (!/^[\x20-\x7e]*$/.test(header)) return badRequest(res, route, 'HTTP header "Dropbox-API-Arg": could not decode input as JSON');
      try {
        arg = JSON.parse(header) as Json;
      } catch {
        return badRequest(res, route, 'HTTP header "Dropbox-API-Arg": could not decode input as JSON');
      }
      const type = req.headers['content-type'];
      const uploading = route === 'files/upload' || route.startsWith('files/upload_session/');
      if (uploading && type !== 'application/octet-stream') return badRequest(res, route, `Bad HTTP "Content-Type" header: "${type}".  Expecting one of "application/octet-stream".`);
      if (!uploading && type !== undefined && !/^text\/plain/.test(type)) return badRequest(res, route, `Bad HTTP "Content-Type" header: "${type}".`);
    }
    this.requests.push({ host, route, arg });
    const sessionId = (arg?.cursor as { session_id?: unknown } | undefined)?.session_id;
    const named = typeof sessionId === 'string' ? this.sessions.get(sessionId) : undefined;
    if (named) named.requests += 1;
    const failure = this.takeFailure(host, route, arg, false);
    if (failure) return this.fail(res, failure);
    if (!this.oauth.authenticate(req.headers.authorization)) {
      const token = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
      const expired = this.oauth.issued.includes(token);
      return apiError(res, 401, expired ? 'expired_access_token' : 'invalid_access_token', { '.tag': expired ? 'expired_access_token' : 'invalid_access_token' });
    }
    if (host === 'api') return this.rpc(req, res, route, arg);
    return this.content(res, route, arg ?? {}, body);
  }

  private rpc(req: IncomingMessage, res: ServerResponse, route: string, arg: Json | null): void {
    const account = this.oauth.authenticate(req.headers.authorization)!;
    switch (route) {
      case 'users/get_current_account':
        if (arg !== null) return badRequest(res, route, 'request body: expected null, got value');
        return this.account(res, account);
      case 'auth/token/revoke':
        this.oauth.revokeBearer(req.headers.authorization);
        return sendJson(res, 200, null);
      case 'files/list_folder':
        return this.listFolder(res, route, arg ?? {});
      case 'files/list_folder/continue':
      case 'files/search/continue_v2':
        return this.continue(res, route, arg ?? {});
      case 'files/search_v2':
        return this.search(res, route, arg ?? {});
      case 'files/get_metadata': {
        if (arg?.path === '') return badRequest(res, route, 'request body: path: The root folder is unsupported.');
        const entry = this.resolve(arg?.path, false);
        if (entry === null) return badRequest(res, route, `request body: path: '${String(arg?.path)}' did not match pattern '(/(.|[\\r\\n])*|id:.*)|(rev:[0-9a-f]{9,})|(ns:[0-9]+(/.*)?)'`);
        if (!entry || entry === 'root') return notFound(res);
        return sendJson(res, 200, this.metadata(entry));
      }
      default:
        return badRequest(res, route, 'Unknown API function');
    }
  }

  private account(res: ServerResponse, account: FakeAccount): void {
    const [given = '', surname = ''] = account.name.split(' ');
    sendJson(res, 200, {
      account_id: account.id,
      name: { given_name: given, surname, familiar_name: given, display_name: account.name, abbreviated_name: `${given[0] ?? ''}${surname[0] ?? ''}` },
      email: account.email,
      email_verified: true,
      disabled: false,
      country: 'AT',
      locale: 'de',
      is_paired: false,
      account_type: { '.tag': 'basic' },
      root_info: { '.tag': 'user', root_namespace_id: '3235641', home_namespace_id: '3235641' },
    });
  }

  private listFolder(res: ServerResponse, route: string, arg: Json): void {
    const limit = arg.limit === undefined ? 2000 : Number(arg.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 2000) return badRequest(res, route, 'request body: limit: value must be between 1 and 2000');
    const folder = this.resolve(arg.path, true);
    if (folder === null) return badRequest(res, route, `request body: path: '${String(arg.path)}' did not match pattern '(/(.|[\\r\\n])*)?|id:.*|(ns:[0-9]+(/.*)?)'`);
    if (folder === undefined) return notFound(res);
    if (folder !== 'root' && !folder.folder) return apiError(res, 409, 'path/not_folder', { '.tag': 'path', path: { '.tag': 'not_folder' } });
    this.page(res, { kind: 'list', folder: folder === 'root' ? '' : folder.id, offset: 0, limit });
  }

  private search(res: ServerResponse, route: string, arg: Json): void {
    const query = arg.query;
    if (typeof query !== 'string' || query.length === 0 || query.length > 1000) return badRequest(res, route, 'request body: query: must be 1 to 1000 characters');
    const options = (arg.options ?? {}) as Json;
    const limit = options.max_results === undefined ? 100 : Number(options.max_results);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return badRequest(res, route, 'request body: options.max_results: value must be between 1 and 1000');
    let scope = '';
    if (options.path !== undefined && options.path !== '') {
      const folder = this.resolve(options.path, true);
      if (!folder) return notFound(res);
      scope = folder === 'root' ? '' : folder.id;
    }
    this.page(res, { kind: 'search', scope, query, offset: 0, limit });
  }

  private continue(res: ServerResponse, route: string, arg: Json): void {
    const cursor = typeof arg.cursor === 'string' ? this.cursors.get(arg.cursor) : undefined;
    const wanted = route === 'files/list_folder/continue' ? 'list' : 'search';
    if (!cursor || cursor.kind !== wanted) return badRequest(res, route, 'request body: cursor: Invalid cursor');
    this.page(res, cursor);
  }

  private page(res: ServerResponse, at: Cursor): void {
    const all =
      at.kind === 'list'
        ? this.childrenOf(at.folder)
        : this.descendantsOf(at.scope).filter((e) => at.query.toLowerCase().split(/\s+/).filter(Boolean).every((t) => e.name.toLowerCase().includes(t)));
    const size = Math.min(at.limit, this.maxPage);
    const page = all.slice(at.offset, at.offset + size);
    const hasMore = at.offset + size < all.length;
    // Dropbox cursors are long opaque strings.
    const cursor = `AAG${randomBytes(90).toString('base64url')}`;
    this.cursors.set(cursor, { ...at, offset: at.offset + size });
    if (at.kind === 'list') {
      sendJson(res, 200, { entries: page.map((e) => this.metadata(e)), cursor, has_more: hasMore });
      return;
    }
    sendJson(res, 200, {
      matches: page.map((e) => ({ match_type: { '.tag': 'filename' }, metadata: { '.tag': 'metadata', metadata: this.metadata(e) } })),
      has_more: hasMore,
      ...(hasMore ? { cursor } : {}),
    });
  }

  private content(res: ServerResponse, route: string, arg: Json, body: Buffer): void {
    switch (route) {
      case 'files/download':
      case 'files/export':
        return this.download(res, route, arg);
      case 'files/upload':
        return this.commit(res, route, arg, body, null);
      case 'files/upload_session/start':
      case 'files/upload_session/append_v2':
      case 'files/upload_session/finish':
        return this.session(res, route, arg, body);
      default:
        return badRequest(res, route, 'Unknown API function');
    }
  }

  private download(res: ServerResponse, route: string, arg: Json): void {
    const entry = this.resolve(arg.path, false);
    if (entry === null) return badRequest(res, route, `HTTP header "Dropbox-API-Arg": path: '${String(arg.path)}' did not match pattern`);
    if (!entry || entry === 'root') return notFound(res);
    if (entry.folder) return apiError(res, 409, 'path/not_file', { '.tag': 'path', path: { '.tag': 'not_file' } });
    let bytes = entry.content;
    let result: Json = this.metadata(entry, false);
    if (route === 'files/export') {
      if (entry.downloadable || !entry.exportAs) return apiError(res, 409, 'non_exportable', { '.tag': 'non_exportable' });
      const format = typeof arg.export_format === 'string' ? arg.export_format : entry.exportAs;
      bytes = Buffer.from(`exported ${entry.name} as ${format} (rev ${entry.rev})\n`);
      result = { export_metadata: { name: `${entry.name}.${format}`, size: bytes.length, export_hash: contentHash(bytes) }, file_metadata: result };
    } else if (!entry.downloadable) {
      return apiError(res, 409, 'unsupported_file', { '.tag': 'unsupported_file' });
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(bytes.length), 'dropbox-api-result': headerJson(result) });
    res.end(bytes);
  }

  private session(res: ServerResponse, route: string, arg: Json, body: Buffer): void {
    if (route === 'files/upload_session/start') {
      const id = `AAAAAAAAA${randomBytes(9).toString('hex')}`;
      this.sessions.set(id, { chunks: [body], received: body.length, closed: arg.close === true, requests: 1 });
      const failure = this.takeFailure('content', route, arg, true);
      if (failure) return this.fail(res, failure);
      return sendJson(res, 200, { session_id: id });
    }
    const cursor = (arg.cursor ?? {}) as { session_id?: unknown; offset?: unknown };
    const session = typeof cursor.session_id === 'string' ? this.sessions.get(cursor.session_id) : undefined;
    const finishing = route === 'files/upload_session/finish';
    const lookupFailed = (summary: string, error: Json) =>
      finishing ? apiError(res, 409, `lookup_failed/${summary}`, { '.tag': 'lookup_failed', lookup_failed: error }) : apiError(res, 409, summary, error);
    if (!session) return lookupFailed('not_found', { '.tag': 'not_found' });
    if (session.closed) return lookupFailed('closed', { '.tag': 'closed' });
    if (cursor.offset !== session.received) return lookupFailed('incorrect_offset', { '.tag': 'incorrect_offset', correct_offset: session.received });
    session.chunks.push(body);
    session.received += body.length;
    if (!finishing) {
      if (arg.close === true) session.closed = true;
      const failure = this.takeFailure('content', route, arg, true);
      if (failure) return this.fail(res, failure);
      return sendJson(res, 200, null);
    }
    session.closed = true;
    return this.commit(res, route, (arg.commit ?? {}) as Json, Buffer.concat(session.chunks), session);
  }

  /** files/upload and upload_session/finish: CommitInfo {path, mode, autorename, ...}. */
  private commit(res: ServerResponse, route: string, commit: Json, content: Buffer, session: Session | null): void {
    const path = commit.path;
    const mode = typeof commit.mode === 'object' && commit.mode !== null ? (commit.mode as Json)['.tag'] : (commit.mode ?? 'add');
    if (typeof path !== 'string' || !/^\/.+[^/]$/.test(path)) return badRequest(res, route, `path: '${String(path)}' did not match pattern '(/(.|[\\r\\n])*)|(ns:[0-9]+(/.*)?)|(id:.*)'`);
    if (mode !== 'add') return badRequest(res, route, `mode: unexpected ${String(mode)}`);
    // Missing parent folders are created, as Dropbox does.
    const parts = path.split('/').slice(1);
    let parent = '';
    for (const name of parts.slice(0, -1)) {
      const existing = this.childrenOf(parent).find((e) => e.name.toLowerCase() === name.toLowerCase());
      if (existing && !existing.folder) return apiError(res, 409, 'path/conflict/file', { '.tag': 'path', reason: { '.tag': 'conflict', conflict: { '.tag': 'file' } }, upload_session_id: '' });
      parent = existing?.id ?? this.addFolder(name, parent);
    }
    let name = parts.at(-1)!;
    const taken = (n: string) => this.childrenOf(parent).some((e) => e.name.toLowerCase() === n.toLowerCase());
    if (taken(name)) {
      if (commit.autorename !== true) return apiError(res, 409, 'path/conflict/file', { '.tag': 'path', reason: { '.tag': 'conflict', conflict: { '.tag': 'file' } }, upload_session_id: '' });
      const dot = name.lastIndexOf('.');
      const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
      let n = 1;
      while (taken(`${stem} (${n})${ext}`)) n += 1;
      name = `${stem} (${n})${ext}`;
    }
    const entry = this.add({ name, parent, content });
    this.uploads.push({
      kind: session ? 'session' : 'upload',
      id: entry.id,
      path: this.pathOf(entry.id),
      size: content.length,
      sha256: createHash('sha256').update(content).digest('hex'),
      requests: session?.requests ?? 1,
      chunks: session ? session.chunks.map((c) => c.length) : [content.length],
    });
    sendJson(res, 200, this.metadata(entry, false));
  }
}

export async function startFakeDropbox(options: { clientSecret?: string | null } = {}): Promise<FakeDropbox> {
  const secret = options.clientSecret === null ? undefined : (options.clientSecret ?? randomBytes(8).toString('hex').slice(0, 15));
  const fake = new FakeDropbox(secret);
  const server = await listen((req, res, url) => fake.handle(req, res, url));
  fake.baseUrl = server.baseUrl;
  fake.close = server.close;
  return fake;
}
