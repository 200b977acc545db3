import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { DRIVE_MODULES } from '../drives/registry.js';
import type { DriveModule } from '../drives/types.js';
import { Envelope, ErrorBody, ok } from '../http/schemas.js';
import { DRIVES_PAGE, STATE_TTL, type DriveAuthService } from '../services/drives/drive-auth-service.js';
import type { DriveImportService } from '../services/drives/drive-import-service.js';
import type { DriveService } from '../services/drives/drive-service.js';
import {
  AuthQuery,
  AuthSchema,
  CallbackQuery,
  DisconnectSchema,
  DownloadQuery,
  DriveItemSchema,
  DrivesSchema,
  FilesQuery,
  FilesSchema,
  ImportBody,
  ImportListQuery,
  ImportListSchema,
  ImportParams,
  ImportQuery,
  ImportSchema,
  MAX_IMPORT_ITEMS,
  UploadBody,
} from '../contracts/drives.js';

const tags = ['drives'];

interface Deps {
  driveAuth: DriveAuthService;
  drives: DriveService;
  driveImports: DriveImportService;
}

const notConfigured = (m: DriveModule) =>
  ` Without ${m.name} configured on this instance every ${m.id} operation answers 404 DRIVE_NOT_CONFIGURED.`;
const connectionNeeded =
  ' Without a connection the answer is 409 DRIVE_NOT_CONNECTED; when the provider refused the stored grant (a refresh failed), ' +
  '409 DRIVE_REAUTH_REQUIRED until the drive is connected again. An expired access token is refreshed once, transparently. ' +
  "Failures of the provider answer 502 DRIVE_PROVIDER_ERROR with the provider's message (provider_status, and retry_after when rate limited).";

/** The callback's only answer: the browser goes back to the web client. */
const CallbackRedirect = Type.Null({
  description: 'The browser goes back to the web client',
  headers: {
    Location: {
      type: 'string',
      format: 'uri-reference',
      description: 'A path of this site: return_to (or the drives page) with ?connected=<provider>, or ?error=<code>&provider=<provider>',
    },
    'Set-Cookie': { type: 'string', description: 'Clears the cookie that bound the request to this browser' },
    'Cache-Control': { type: 'string', const: 'no-store' },
  },
});

/**
 * External drives (issue #16, seed 4.6 /drive-ext-1, /drive-ext-2, /drive-ext-3): the same operations for every
 * provider of src/drives/registry.ts, generated here, plus GET /drives and the import status.
 */
export const driveRoutes: FastifyPluginCallbackTypebox<Deps> = (app, { driveAuth, drives, driveImports }, done) => {
  app.get(
    '/drives',
    {
      schema: {
        tags,
        summary: "The external drives configured on this instance and the caller's connections to them",
        description:
          'Lists only the providers this instance has configured (drive-ext-1 Google Drive, drive-ext-2 Dropbox, drive-ext-3 ' +
          "OneDrive), each with the caller's connection or null. Connections belong to a user, not a workspace; tokens are " +
          'kept encrypted (AES-256-GCM) and never answered.',
        response: { 200: Envelope(DrivesSchema), 401: ErrorBody },
      },
    },
    async (req) => ok(await driveAuth.list(req.caller)),
  );

  app.get(
    '/drives/imports',
    {
      schema: {
        tags,
        summary: "A workspace's drive imports, newest first (members of the workspace)",
        description:
          'The same fields as GET /drives/imports/{id} without the per-item results, for a page that shows running and past ' +
          'imports. Not a member of the workspace: 404.',
        querystring: ImportListQuery,
        response: { 200: Envelope(ImportListSchema), 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => ok(await driveImports.list(req.caller, req.query)),
  );

  app.get(
    '/drives/imports/:id',
    {
      schema: {
        tags,
        summary: 'Status, progress and per-item results of a drive import (members of its workspace)',
        description:
          'status is queued (also between retries, with that attempt\'s error), running, succeeded or failed (error says why; ' +
          'files imported before stay). total_files grows while the job walks the selected folders; planned says when it is ' +
          'final. progress is processed_files / total_files. items pages through every file and folder in the order the job ' +
          'met them (status filters them), with what became of each. Not a member of the workspace: 404.',
        params: ImportParams,
        querystring: ImportQuery,
        response: { 200: Envelope(ImportSchema), 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => ok(await driveImports.get(req.caller, req.params.id, req.query)),
  );

  for (const m of DRIVE_MODULES) {
    const id = m.id;
    const driveTags = [...tags, m.id];

    app.get(
      `/${id}/auth`,
      {
        schema: {
          tags: driveTags,
          summary: `Start connecting ${m.name}: the provider's authorization URL`,
          description:
            `Answers the URL to send the browser to: ${m.name}'s authorization-code flow with PKCE (S256), offline access (so ` +
            'a refresh token is issued), and a state that is signed, single-use, bound to the caller and valid for ' +
            `${STATE_TTL / 60} minutes. The answer also sets an HttpOnly cookie (SameSite=Lax, path of the callback only) that ` +
            'binds the request to this browser: the callback refuses a state arriving in another browser, so a URL sent to ' +
            'someone else cannot connect their drive to this account. Open the URL in the same browser (same site as this API). ' +
            `return_to (a path of this site, e.g. ${DRIVES_PAGE}; an absolute or protocol-relative URL is 400) is where the ` +
            `callback sends the browser; default ${DRIVES_PAGE}, with ?workspaceId= when workspaceId is given (the caller must ` +
            'be a member of it).' +
            notConfigured(m),
          querystring: AuthQuery,
          response: { 200: Envelope(AuthSchema), 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
        },
      },
      async (req, reply) => {
        const started = await driveAuth.start(req.caller, id, req.query);
        return reply.header('set-cookie', started.cookie).header('cache-control', 'no-store').send(ok(started.view));
      },
    );

    app.get(
      `/${id}/callback`,
      {
        config: { public: true },
        schema: {
          tags: driveTags,
          summary: `Where ${m.name} sends the browser back (OAuth redirect URI; no bearer token)`,
          description:
            `Register ${'{DAM_PUBLIC_URL}'}/${id}/callback as the redirect URI of the OAuth client. Checks the state (signature, ` +
            'expiry, single use, the browser cookie set by the auth request), exchanges the code with the PKCE verifier, reads ' +
            'the account (id, e-mail) and stores the connection for the user who started it, replacing an earlier one. Always ' +
            `answers 302: to return_to with ?connected=${id}, or with ?error= (access_denied or the provider's error when the ` +
            'user declined, exchange_failed) and provider; a state that is forged, expired, used before or from another ' +
            `browser goes to ${DRIVES_PAGE}?error=invalid_state. Unknown parameters the provider adds are ignored.` +
            notConfigured(m),
          querystring: CallbackQuery,
          response: { 302: CallbackRedirect, 400: ErrorBody, 404: ErrorBody },
        },
      },
      async (req, reply) => {
        const result = await driveAuth.callback(id, req.query, req.headers.cookie);
        if (result.failure) req.log.warn({ provider: id }, `Connecting ${m.name} failed: ${result.failure}`);
        return reply
          .header('set-cookie', result.clearCookie)
          .header('cache-control', 'no-store')
          .header('referrer-policy', 'no-referrer')
          .redirect(result.location, 302);
      },
    );

    app.get(
      `/${id}/files`,
      {
        schema: {
          tags: driveTags,
          summary: `One folder of the connected ${m.name}, a page at a time`,
          description:
            'Folders first, then files, by name (Dropbox lists in no order of its own: there within each page; OneDrive sorts ' +
            'by name only, folders among the files), as id, name, ' +
            'is_folder, mime_type, size, modified_at, thumbnail_url, and for provider documents (Google Docs, Sheets, Slides, ' +
            'Drawings; Dropbox Paper docs) the export format a download or import makes of them; items that cannot be ' +
            'downloaded at all (Google Forms, shortcuts; Dropbox files it allows no download of; OneDrive notebooks, shared ' +
            'items added to the drive, files flagged as malware) say why in unsupported. ' +
            "Dropbox keeps no media type: mime_type follows from the name, and ids are Dropbox's `id:...`. folder is an id from an " +
            "earlier listing (default the drive's root). q searches by name where the provider can (GET /drives says): within " +
            "folder when given, else the whole drive (OneDrive: the folder's whole hierarchy, matching content and metadata " +
            'too). next_cursor is opaque and bound to the caller, the folder and the search; ' +
            'pass it back as cursor (with the same folder and q, or without them) for the next page; a cursor that was altered ' +
            'or belongs to another listing is 400.' +
            connectionNeeded +
            notConfigured(m),
          querystring: FilesQuery,
          response: { 200: Envelope(FilesSchema), 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 409: ErrorBody, 502: ErrorBody },
        },
      },
      async (req) => ok(await drives.files(req.caller, id, req.query)),
    );

    app.get(
      `/${id}/download`,
      {
        schema: {
          tags: driveTags,
          summary: `Download one file of the connected ${m.name}, streamed`,
          description:
            'Streams the file from the provider as it arrives (never held whole), with its Content-Type, Content-Length when the ' +
            'provider sent one, Content-Disposition attachment with its name, nosniff and a sandboxing CSP. Provider documents ' +
            'are exported (Google Docs as DOCX, Sheets as XLSX, Slides as PPTX, Drawings as PDF; Dropbox Paper docs in the ' +
            'format Dropbox names for them, e.g. Markdown) and named with that extension; a folder, or an item that has no bytes ' +
            '(Google Forms, shortcuts; Dropbox files it allows no download of; OneDrive notebooks, shared items, files flagged ' +
            'as malware), is 422 DRIVE_ITEM_UNSUPPORTED; an unknown id 404.' +
            connectionNeeded +
            notConfigured(m),
          querystring: DownloadQuery,
          produces: ['application/octet-stream'],
          response: {
            200: Type.Any({ description: "The file's bytes" }),
            400: ErrorBody,
            401: ErrorBody,
            404: ErrorBody,
            409: ErrorBody,
            422: ErrorBody,
            502: ErrorBody,
          },
        },
      },
      async (req, reply) => {
        const download = await drives.download(req.caller, id, req.query.fileId);
        return reply.headers(download.headers).send(download.stream);
      },
    );

    app.post(
      `/${id}/upload`,
      {
        config: { idempotent: true },
        schema: {
          tags: driveTags,
          summary: `Send an asset's file to the connected ${m.name} (members, viewers included)`,
          description:
            "Sends the asset's current file (or version_id, a version of it) into folder (a drive folder id; default the root) " +
            "under the asset's display name, streamed from storage. Files over the provider's single-request limit (5 MiB on " +
            'Google Drive, 8 MiB on Dropbox, 4 MiB on OneDrive) go through its resumable upload (Dropbox and OneDrive: an upload ' +
            'session), a chunk at a time, resuming after a failed chunk. Dropbox never overwrites: a name already in the folder ' +
            'gets " (1)"; OneDrive neither: it names the file "name 1.ext", and characters OneDrive refuses in names become _. Answers 201 with ' +
            'the created drive item. Viewers may, as they may download the file. An asset of another workspace, in the trash ' +
            'or still uploading is 404.' +
            connectionNeeded +
            notConfigured(m),
          body: UploadBody,
          response: { 201: Envelope(DriveItemSchema), 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 409: ErrorBody, 502: ErrorBody },
        },
      },
      async (req, reply) => reply.status(201).send(ok(await drives.upload(req.caller, id, req.body))),
    );

    app.post(
      `/${id}/import`,
      {
        config: { idempotent: true },
        schema: {
          tags: driveTags,
          summary: `Import files and folders of the connected ${m.name} into the library (managers and admins)`,
          description:
            `Answers 202 with the import job (status queued); poll GET /drives/imports/{id}. Up to ${MAX_IMPORT_ITEMS} items: a ` +
            'file becomes an asset in folder_id (default the top level); a folder is recreated there (a folder of the same name ' +
            'already there is reused) with its files, and with recursive (default true) its sub-folders too. Files are streamed ' +
            'from the provider into storage (never whole in memory) and stored as an upload through this server would be: type ' +
            'from the bytes, thumbnails, embedded metadata, the asset.upload activity entry by the requester. Provider documents ' +
            'are imported as their export format. Importing the same drive file into the same folder again is idempotent: the ' +
            'asset keeps the file id and revision it came from; an unchanged file is skipped (unchanged), a changed one becomes ' +
            'a new version of that asset. Rate limiting by the provider (429, 503, Retry-After) is waited out with backoff; an ' +
            'item that still fails is recorded as failed and the rest goes on. Viewers: 403; a folder_id that is not a folder of ' +
            'the workspace: 400; not a member: 404.' +
            connectionNeeded +
            notConfigured(m),
          body: ImportBody,
          response: { 202: Envelope(ImportSchema), 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody },
        },
      },
      async (req, reply) => reply.status(202).send(ok(await driveImports.start(req.caller, id, req.body))),
    );

    app.delete(
      `/${id}/connection`,
      {
        schema: {
          tags: driveTags,
          summary: `Disconnect ${m.name}: revoke the grant and delete the connection`,
          description:
            'Revokes the grant at the provider where it offers revocation (revoked says whether it confirmed; OneDrive offers ' +
            'none, so revoked is false there and the user removes the app in their Microsoft account), then deletes the ' +
            'connection and its tokens whatever the provider answered. Imports still running for it fail. Not connected: 409 ' +
            'DRIVE_NOT_CONNECTED.' +
            notConfigured(m),
          response: { 200: Envelope(DisconnectSchema), 401: ErrorBody, 404: ErrorBody, 409: ErrorBody },
        },
      },
      async (req) => ok(await driveAuth.disconnect(req.caller, id)),
    );
  }
  done();
};
