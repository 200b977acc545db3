import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DriveOAuthClientConfig } from '../../src/config.js';
import { FakeOAuth, listen, readBody, sendJson, type FakeAccount } from './fake-oauth.js';

/**
 * A stand-in for OneDrive on 127.0.0.1 speaking Microsoft's documented wire format:
 * - OAuth (fake-oauth.ts) of the Microsoft identity platform under the tenant `/common`:
 *   /common/oauth2/v2.0/authorize (the scope must hold offline_access), /common/oauth2/v2.0/token (refresh
 *   tokens rotate, a refresh must carry `scope`); no revocation endpoint (Microsoft has none).
 * - Microsoft Graph v1.0 under `apiPrefix` (tests use one, so base URLs with a path are exercised):
 *   GET /v1.0/me; GET /v1.0/me/drive/root | items/{id} (metadata, honouring $select and $expand=thumbnails);
 *   .../children ($top, $orderby=name, paged with `@odata.nextLink` carrying a $skiptoken bound to the listing);
 *   .../search(q='...') (names anywhere below the item, paged likewise); .../content (302 to a pre-authenticated
 *   /dl/ URL, which refuses an Authorization header with 401 as Microsoft warns it may);
 *   PUT .../{parent}:/{name}:/content (simple upload, at most 4 MiB, @microsoft.graph.conflictBehavior);
 *   POST .../{parent}:/{name}:/createUploadSession and the session's /up/ URL: PUT fragments with
 *   Content-Range (sequential, multiples of 320 KiB but the last, at most 60 MiB; 202 with nextExpectedRanges,
 *   201 with the item; 416 for bytes it had; 401 with an Authorization header), GET its status, DELETE it.
 * - Every Graph call needs a live bearer token: 401 InvalidAuthenticationToken otherwise.
 * - `failures`: answers to give instead, matched by method and path (429 with Retry-After, 5xx, 403 codes).
 * Names OneDrive refuses (`"*:<>?/\|`) are refused with 400 invalidRequest.
 */
export interface FakeItem {
  id: string;
  name: string;
  parentId: string | null;
  kind: 'folder' | 'file' | 'package' | 'remote';
  content: Buffer | null;
  mimeType: string | null;
  modified: string;
  /** Counts content changes (cTag). */
  contentVersion: number;
  /** Counts every change (eTag). */
  version: number;
  malware: string | null;
}

export interface Failure {
  method?: string;
  /** Matched against the path after the API prefix (e.g. /v1.0/me/drive/items/X!12/content), or /dl/... and /up/.... */
  path: RegExp;
  query?: RegExp;
  status: number;
  code?: string;
  message?: string;
  retryAfter?: string;
  /** How many requests it answers (default 1). */
  times?: number;
}

export interface UploadRecord {
  kind: 'simple' | 'session';
  itemId: string;
  name: string;
  size: number;
  sha256: string;
  /** PUTs to the session URL (fragments, failed ones included) and status GETs. */
  puts: number;
  statusQueries: number;
  /** Session requests that carried an Authorization header (must be none). */
  withAuthorization: number;
}

interface Session {
  parentId: string;
  name: string;
  conflict: string;
  total: number | null;
  chunks: Buffer[];
  received: number;
  puts: number;
  statusQueries: number;
  withAuthorization: number;
}

const SIMPLE_LIMIT = 4 * 1024 * 1024;
const FRAGMENT_GRANULE = 320 * 1024;
const MAX_FRAGMENT = 60 * 1024 * 1024;
const FORBIDDEN = /["*:<>?/\\|]/;

function graphError(res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { error: { code, message, innerError: { date: new Date().toISOString(), 'request-id': randomUUID(), 'client-request-id': randomUUID() } } }, headers);
}

const byName = (a: FakeItem, b: FakeItem) => a.name.localeCompare(b.name, 'en', { sensitivity: 'base' }) || a.id.localeCompare(b.id);

export class FakeOneDrive {
  readonly oauth: FakeOAuth;
  readonly driveId = randomBytes(8).toString('hex').toUpperCase();
  readonly items = new Map<string, FakeItem>();
  readonly rootId: string;
  failures: Failure[] = [];
  readonly uploads: UploadRecord[] = [];
  /** Every request: method, path (after the API prefix), query, and whether it carried a bearer token. */
  readonly requests: { method: string; path: string; query: string; bearer: boolean }[] = [];
  /** Sessions the client cancelled (DELETE). */
  cancelled = 0;
  /** Largest page Graph answers, whatever $top asks (tests lower it to page small folders). */
  maxPageSize = 1000;
  private next = 101;
  private readonly sessions = new Map<string, Session>();
  private readonly downloads = new Map<string, { itemId: string; expiresAt: number }>();
  baseUrl = '';
  close: () => Promise<void> = () => Promise.resolve();

  constructor(
    readonly apiPrefix: string,
    clientSecret: string,
  ) {
    this.oauth = new FakeOAuth({
      clientSecret,
      authorizePath: '/common/oauth2/v2.0/authorize',
      tokenPath: '/common/oauth2/v2.0/token',
      rotateRefreshTokens: true,
      accessTokenTtl: 3600,
      requiredTokenParams: { refresh_token: ['scope'] },
      callbackParams: { session_state: randomUUID() },
    });
    this.oauth.account = { id: randomBytes(8).toString('hex'), email: 'pat@outlook.example', name: 'Pat Example' };
    this.rootId = this.add({ name: 'root', parentId: null, kind: 'folder' }).id;
  }

  /** The app's drives.onedrive config pointing at this fake (the tenant `common` as path, as by default). */
  get config(): DriveOAuthClientConfig {
    return {
      clientId: this.oauth.clientId,
      clientSecret: this.oauth.clientSecret,
      authorizeUrl: `${this.baseUrl}/common`,
      tokenUrl: `${this.baseUrl}/common`,
      apiUrl: `${this.baseUrl}${this.apiPrefix}`,
    };
  }

  addFolder(name: string, parent = this.rootId): string {
    return this.add({ name, parentId: parent, kind: 'folder' }).id;
  }

  addFile(name: string, content: Buffer | string, options: { parent?: string; mimeType?: string; malware?: string } = {}): string {
    return this.add({
      name,
      parentId: options.parent ?? this.rootId,
      kind: 'file',
      content: Buffer.from(content),
      mimeType: options.mimeType ?? 'application/octet-stream',
      malware: options.malware ?? null,
    }).id;
  }

  /** A OneNote notebook (a package: no bytes of its own). */
  addNotebook(name: string, parent = this.rootId): string {
    return this.add({ name, parentId: parent, kind: 'package' }).id;
  }

  /** A folder someone shared, added to this drive (a remoteItem). */
  addShared(name: string, parent = this.rootId): string {
    return this.add({ name, parentId: parent, kind: 'remote' }).id;
  }

  /** New content: a new cTag (and eTag), as an edit in OneDrive makes. */
  updateFile(id: string, content: Buffer | string): void {
    const item = this.items.get(id)!;
    item.content = Buffer.from(content);
    item.contentVersion += 1;
    item.version += 1;
    item.modified = new Date().toISOString();
  }

  /** A rename changes the eTag only. */
  rename(id: string, name: string): void {
    const item = this.items.get(id)!;
    item.name = name;
    item.version += 1;
  }

  childrenOf(id: string): FakeItem[] {
    return [...this.items.values()].filter((i) => i.parentId === id).sort(byName);
  }

  private add(values: Partial<FakeItem> & Pick<FakeItem, 'name' | 'parentId' | 'kind'>): FakeItem {
    const item: FakeItem = {
      id: `${this.driveId}!${this.next++}`,
      content: null,
      mimeType: null,
      modified: new Date().toISOString(),
      contentVersion: 1,
      version: 1,
      malware: null,
      ...values,
    };
    this.items.set(item.id, item);
    return item;
  }

  private json(item: FakeItem, select: string | null, thumbnails: boolean): Record<string, unknown> {
    const size = item.kind === 'file' ? item.content!.length : this.childrenOf(item.id).reduce((n, c) => n + (c.content?.length ?? 0), 0);
    const full: Record<string, unknown> = {
      id: item.id,
      name: item.name,
      size,
      createdDateTime: item.modified,
      lastModifiedDateTime: item.modified,
      eTag: `"{${item.id}},${item.version}"`,
      cTag: `"c:{${item.id}},${item.contentVersion}"`,
      webUrl: `https://onedrive.example/${encodeURIComponent(item.id)}`,
      parentReference: item.parentId ? { driveId: this.driveId, driveType: 'personal', id: item.parentId } : { driveId: this.driveId, driveType: 'personal' },
    };
    if (item.kind === 'folder') full.folder = { childCount: this.childrenOf(item.id).length, view: { sortBy: 'name', sortOrder: 'ascending', viewType: 'thumbnails' } };
    if (item.kind === 'package') full.package = { type: 'oneNote' };
    if (item.kind === 'remote') full.remoteItem = { id: `0000000000000000!${item.id.split('!')[1]}`, folder: { childCount: 3 }, parentReference: { driveId: '0000000000000000', driveType: 'personal' } };
    if (item.kind === 'file') {
      full.file = { mimeType: item.mimeType, hashes: { sha1Hash: createHash('sha1').update(item.content!).digest('hex').toUpperCase() } };
      if (item.malware) full.malware = { description: item.malware };
    }
    const out = select ? Object.fromEntries(Object.entries(full).filter(([k]) => select.split(',').includes(k))) : full;
    if (thumbnails) {
      const thumb = (size: string) => ({ height: 96, width: 96, url: `https://thumbnails.onedrive.example/${encodeURIComponent(item.id)}/${size}?v=${item.contentVersion}` });
      out.thumbnails = item.kind === 'file' ? [{ id: '0', small: thumb('small'), medium: thumb('medium'), large: thumb('large') }] : [];
    }
    return out;
  }

  async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const method = req.method ?? 'GET';
    if (method === 'GET' && url.pathname === '/common/oauth2/v2.0/authorize' && !(url.searchParams.get('scope') ?? '').split(' ').includes('offline_access')) {
      res.writeHead(400, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<p>AADSTS: no refresh token without offline_access (this fake insists on it)</p>');
      return;
    }
    if (await this.oauth.handle(req, res, url.pathname, url)) return;

    const preAuthenticated = url.pathname.startsWith('/dl/') || url.pathname.startsWith('/up/');
    if (!preAuthenticated && !url.pathname.startsWith(`${this.apiPrefix}/v1.0/`)) return graphError(res, 404, 'itemNotFound', `No route ${url.pathname}`);
    const path = preAuthenticated ? url.pathname : url.pathname.slice(this.apiPrefix.length);
    const bearer = /^Bearer /i.test(req.headers.authorization ?? '');
    this.requests.push({ method, path, query: url.search, bearer });
    const failure = this.failures.find((f) => (!f.method || f.method === method) && f.path.test(path) && (!f.query || f.query.test(url.search)));
    if (failure) {
      failure.times = (failure.times ?? 1) - 1;
      if (failure.times <= 0) this.failures.splice(this.failures.indexOf(failure), 1);
      await readBody(req);
      const headers: Record<string, string> = failure.retryAfter ? { 'retry-after': failure.retryAfter } : {};
      return graphError(res, failure.status, failure.code ?? (failure.status === 429 ? 'activityLimitReached' : 'generalException'), failure.message ?? `Fake failure ${failure.status}`, headers);
    }
    if (url.pathname.startsWith('/dl/')) return this.preAuthenticatedDownload(req, res, url.pathname.slice(4));
    if (url.pathname.startsWith('/up/')) return this.sessionRequest(req, res, url.pathname.slice(4));

    const account = this.oauth.authenticate(req.headers.authorization);
    if (!account) {
      await readBody(req);
      return graphError(res, 401, 'InvalidAuthenticationToken', 'Access token has expired or is not yet valid.', {
        'www-authenticate': 'Bearer realm="", authorization_uri="https://login.microsoftonline.com/common/oauth2/authorize", client_id="00000003-0000-0000-c000-000000000000"',
      });
    }
    if (method === 'GET' && path === '/v1.0/me') return this.me(res, account, url.searchParams);
    const match = /^\/v1\.0\/me\/drive\/(?:root|items\/([^/:]+))(.*)$/.exec(path);
    if (!match) return graphError(res, 400, 'invalidRequest', `Invalid request ${method} ${path}`);
    const id = match[1] ? decodeURIComponent(match[1]) : this.rootId;
    const rest = match[2]!;
    const item = this.items.get(id);
    if (!item) {
      await readBody(req);
      return graphError(res, 404, 'itemNotFound', 'Item does not exist');
    }
    const q = url.searchParams;
    if (method === 'GET' && rest === '') return sendJson(res, 200, this.json(item, q.get('$select'), q.get('$expand') === 'thumbnails'));
    if (method === 'GET' && rest === '/children') return this.list(res, url, path, this.childrenOf(item.id), 'children');
    const search = /^\/search\(q=(.*)\)$/.exec(rest);
    if (method === 'GET' && search) {
      const literal = decodeURIComponent(search[1]!);
      if (!/^'(?:[^']|'')*'$/.test(literal)) return graphError(res, 400, 'invalidRequest', `Invalid search literal ${literal}`);
      const text = literal.slice(1, -1).replace(/''/g, "'").toLowerCase();
      return this.list(res, url, path, this.descendants(item.id).filter((i) => i.name.toLowerCase().includes(text)), 'search');
    }
    if (method === 'GET' && rest === '/content') return this.content(res, item);
    const byPath = /^:\/([^/]+):\/(content|createUploadSession)$/.exec(rest);
    if (byPath && item.kind === 'folder') {
      const name = decodeURIComponent(byPath[1]!);
      if (FORBIDDEN.test(name) || name !== name.trim()) {
        await readBody(req);
        return graphError(res, 400, 'invalidRequest', 'The provided name cannot contain any illegal characters.');
      }
      if (method === 'PUT' && byPath[2] === 'content') return this.simpleUpload(req, res, item, name, q.get('@microsoft.graph.conflictBehavior') ?? 'replace');
      if (method === 'POST' && byPath[2] === 'createUploadSession') return this.createSession(req, res, item, name);
    }
    await readBody(req);
    return graphError(res, 400, 'invalidRequest', `Invalid request ${method} ${path}`);
  }

  private me(res: ServerResponse, account: FakeAccount, q: URLSearchParams): void {
    // A personal account: no `mail`, the sign-in address as userPrincipalName.
    const full: Record<string, unknown> = { id: account.id, displayName: account.name, mail: null, userPrincipalName: account.email, preferredLanguage: 'en-US' };
    const select = q.get('$select');
    sendJson(res, 200, select ? Object.fromEntries(Object.entries(full).filter(([k]) => select.split(',').includes(k))) : full);
  }

  private descendants(id: string): FakeItem[] {
    const out: FakeItem[] = [];
    for (const child of this.childrenOf(id)) {
      out.push(child);
      if (child.kind === 'folder') out.push(...this.descendants(child.id));
    }
    return out;
  }

  /** One page; the $skiptoken names the listing it belongs to, as Graph's are only good for their own URL. */
  private list(res: ServerResponse, url: URL, path: string, all: FakeItem[], kind: 'children' | 'search'): void {
    const q = url.searchParams;
    const top = Math.min(Number(q.get('$top') ?? 200), this.maxPageSize);
    if (!Number.isInteger(top) || top < 1) return graphError(res, 400, 'invalidRequest', 'Invalid $top');
    if (kind === 'children' && q.get('$orderby') !== null && q.get('$orderby') !== 'name') return graphError(res, 400, 'invalidRequest', 'Sorting on that property is not supported');
    let offset = 0;
    const skip = q.get('$skiptoken');
    if (skip) {
      const [listing, at] = Buffer.from(skip, 'base64url').toString('utf8').split('|');
      if (listing !== path || !/^\d+$/.test(at ?? '')) return graphError(res, 400, 'invalidRequest', 'Invalid skip token.');
      offset = Number(at);
    }
    const page = all.slice(offset, offset + top);
    const body: Record<string, unknown> = {
      '@odata.context': `${this.baseUrl}${this.apiPrefix}/v1.0/$metadata#Collection(driveItem)`,
      value: page.map((i) => this.json(i, q.get('$select'), q.get('$expand') === 'thumbnails')),
    };
    if (offset + top < all.length) {
      const next = new URL(`${this.baseUrl}${this.apiPrefix}${path}`);
      const params = [...q.entries()].filter(([k]) => k !== '$skiptoken');
      params.push(['$skiptoken', Buffer.from(`${path}|${offset + top}`).toString('base64url')]);
      next.search = params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
      body['@odata.nextLink'] = next.toString();
    }
    sendJson(res, 200, body);
  }

  private content(res: ServerResponse, item: FakeItem): void {
    if (item.kind !== 'file') return graphError(res, 404, 'itemNotFound', 'The item has no content');
    if (item.malware) return graphError(res, 403, 'malwareDetected', 'Malware detected in the file');
    const token = randomBytes(18).toString('base64url');
    this.downloads.set(token, { itemId: item.id, expiresAt: Date.now() + 3_600_000 });
    res.writeHead(302, { location: `${this.baseUrl}/dl/${token}?tempauth=${randomBytes(8).toString('hex')}`, 'content-length': '0' });
    res.end();
  }

  private async preAuthenticatedDownload(req: IncomingMessage, res: ServerResponse, token: string): Promise<void> {
    await readBody(req);
    if (req.headers.authorization) return graphError(res, 401, 'unauthenticated', 'An Authorization header is not accepted on a pre-authenticated URL');
    const entry = this.downloads.get(token);
    const item = entry && entry.expiresAt > Date.now() ? this.items.get(entry.itemId) : undefined;
    if (!item?.content) return graphError(res, 410, 'resourceExpired', 'The download URL has expired');
    res.writeHead(200, { 'content-type': item.mimeType ?? 'application/octet-stream', 'content-length': String(item.content.length) });
    res.end(item.content);
  }

  /** The item named `name` in `parent` after the conflict rule: null when it must fail. */
  private place(parent: FakeItem, name: string, conflict: string, content: Buffer, mimeType: string): { item: FakeItem; created: boolean } | null {
    const taken = (n: string) => this.childrenOf(parent.id).find((c) => c.name.toLowerCase() === n.toLowerCase());
    const existing = taken(name);
    if (existing && conflict === 'replace' && existing.kind === 'file') {
      this.updateFile(existing.id, content);
      return { item: existing, created: false };
    }
    if (existing && conflict !== 'rename') return null;
    let final = name;
    if (existing) {
      const dot = name.lastIndexOf('.');
      const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
      for (let n = 1; taken(final); n++) final = `${stem} ${n}${ext}`;
    }
    return { item: this.add({ name: final, parentId: parent.id, kind: 'file', content, mimeType }), created: true };
  }

  private record(kind: UploadRecord['kind'], item: FakeItem, session?: Session): void {
    this.uploads.push({
      kind,
      itemId: item.id,
      name: item.name,
      size: item.content!.length,
      sha256: createHash('sha256').update(item.content!).digest('hex'),
      puts: session?.puts ?? 1,
      statusQueries: session?.statusQueries ?? 0,
      withAuthorization: session?.withAuthorization ?? 0,
    });
  }

  private async simpleUpload(req: IncomingMessage, res: ServerResponse, parent: FakeItem, name: string, conflict: string): Promise<void> {
    const body = await readBody(req);
    if (body.length > SIMPLE_LIMIT) return graphError(res, 413, 'requestTooLarge', 'The simple upload API takes files up to 4 MB; use an upload session');
    const placed = this.place(parent, name, conflict, body, String(req.headers['content-type'] ?? 'application/octet-stream'));
    if (!placed) return graphError(res, 409, 'nameAlreadyExists', 'The specified item name already exists.');
    this.record('simple', placed.item);
    sendJson(res, placed.created ? 201 : 200, this.json(placed.item, null, false));
  }

  private async createSession(req: IncomingMessage, res: ServerResponse, parent: FakeItem, name: string): Promise<void> {
    const body = JSON.parse((await readBody(req)).toString('utf8') || '{}') as { item?: { '@microsoft.graph.conflictBehavior'?: string; name?: string } };
    if (body.item?.name !== undefined && body.item.name !== name) return graphError(res, 400, 'invalidRequest', 'The name in the path and in the body differ');
    const id = randomBytes(16).toString('base64url');
    this.sessions.set(id, { parentId: parent.id, name, conflict: body.item?.['@microsoft.graph.conflictBehavior'] ?? 'fail', total: null, chunks: [], received: 0, puts: 0, statusQueries: 0, withAuthorization: 0 });
    sendJson(res, 200, { uploadUrl: `${this.baseUrl}/up/${id}`, expirationDateTime: new Date(Date.now() + 3_600_000).toISOString(), nextExpectedRanges: ['0-'] });
  }

  private async sessionRequest(req: IncomingMessage, res: ServerResponse, id: string): Promise<void> {
    const body = await readBody(req);
    const session = this.sessions.get(id);
    if (!session) return graphError(res, 404, 'itemNotFound', 'The upload session was not found');
    const expected = () => ({ expirationDateTime: new Date(Date.now() + 3_600_000).toISOString(), nextExpectedRanges: [`${session.received}-`] });
    if (req.headers.authorization) {
      session.withAuthorization += 1;
      return graphError(res, 401, 'unauthenticated', 'An Authorization header is not accepted on the upload URL');
    }
    if (req.method === 'DELETE') {
      this.sessions.delete(id);
      this.cancelled += 1;
      res.writeHead(204);
      res.end();
      return;
    }
    if (req.method === 'GET') {
      session.statusQueries += 1;
      return sendJson(res, 200, expected());
    }
    if (req.method !== 'PUT') return graphError(res, 405, 'invalidRequest', 'Method not allowed');
    session.puts += 1;
    const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(req.headers['content-range'] ?? ''));
    if (!range) return graphError(res, 400, 'invalidRequest', 'Missing or malformed Content-Range');
    const [start, end, total] = [Number(range[1]), Number(range[2]), Number(range[3])];
    if (session.total !== null && total !== session.total) return graphError(res, 400, 'invalidRequest', 'The declared file size changed');
    session.total = total;
    if (end - start + 1 !== body.length) return graphError(res, 400, 'invalidRequest', 'Content-Range does not match the body');
    if (body.length > MAX_FRAGMENT) return graphError(res, 413, 'requestTooLarge', 'Fragments are at most 60 MiB');
    if (start !== session.received) return graphError(res, 416, 'invalidRange', `Expected bytes from ${session.received}`);
    if (end + 1 < total && body.length % FRAGMENT_GRANULE !== 0) return graphError(res, 400, 'invalidRequest', 'Fragments must be multiples of 320 KiB');
    session.chunks.push(body);
    session.received += body.length;
    if (session.received < total) return sendJson(res, 202, expected());
    this.sessions.delete(id);
    const parent = this.items.get(session.parentId)!;
    const placed = this.place(parent, session.name, session.conflict, Buffer.concat(session.chunks), 'application/octet-stream');
    if (!placed) return graphError(res, 409, 'nameAlreadyExists', 'Another file exists with the same name as the uploaded session.');
    this.record('session', placed.item, session);
    sendJson(res, placed.created ? 201 : 200, this.json(placed.item, null, false));
  }
}

export async function startFakeOneDrive(options: { apiPrefix?: string } = {}): Promise<FakeOneDrive> {
  const fake = new FakeOneDrive(options.apiPrefix ?? '', `msal~${randomBytes(15).toString('base64url')}`);
  const server = await listen((req, res, url) => fake.handle(req, res, url));
  fake.baseUrl = server.baseUrl;
  fake.close = server.close;
  return fake;
}
