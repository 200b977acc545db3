import type { FastifyInstance } from 'fastify';

/**
 * The verbs an operationId starts with. A new operation picks one of these; a new verb is added here only when none
 * of them says what the operation does.
 */
export const OPERATION_VERBS = [
  'get', 'list', 'create', 'update', 'delete', 'add', 'remove', 'upload', 'download', 'search', 'restore', 'empty',
  'start', 'complete', 'abort', 'cancel', 'sign', 'accept', 'check', 'validate', 'unlock', 'send', 'receive', 'confirm',
  'merge',
] as const;

/**
 * The operationId of every operation of the OpenAPI document, by `METHOD /path` as the document writes the path
 * ({param}, not :param). One reviewable list instead of an id in each route file (issue #38).
 *
 * An id never changes once released: client generators name their methods after it. A renamed path keeps its id
 * (change the key, not the value); a removed operation's id is not given to another one.
 * test/openapi-operation-ids.test.ts fails on an operation missing here, an entry matching no operation, a
 * duplicate id or a verb not in OPERATION_VERBS. Hidden routes (schema.hide) are not in the document and need none.
 */
export const OPERATION_IDS: Readonly<Record<string, string>> = {
  // health
  'GET /healthz': 'getLiveness',
  'GET /readyz': 'getReadiness',
  // auth: sign-in, registration, the own account and its sessions
  'POST /auth/register': 'createAccount',
  'POST /auth/login': 'createSession',
  'POST /auth/logout': 'deleteCurrentSession',
  'GET /auth/me': 'getCurrentUser',
  'PATCH /auth/me': 'updateCurrentUser',
  'GET /auth/social/config': 'getSocialConfig',
  'POST /auth/social/callback': 'createSocialSession',
  'GET /auth/options': 'getAccountOptions',
  'POST /auth/password': 'updatePassword',
  'GET /auth/sessions': 'listSessions',
  'DELETE /auth/sessions/{sessionId}': 'deleteSession',
  'POST /auth/sessions/end-others': 'deleteOtherSessions',
  'POST /auth/password-reset': 'sendPasswordResetLink',
  'GET /auth/password-reset': 'getPasswordLink',
  'POST /auth/password-reset/confirm': 'completePasswordReset',
  'GET /invitations/{token}': 'getInvitation',
  'POST /invitations/{token}/accept': 'acceptInvitationAsNewUser',
  'POST /invitations/{token}/join': 'acceptInvitationAsCurrentUser',
  // workspaces, members, invitations
  'GET /workspaces': 'listWorkspaces',
  'POST /workspaces': 'createWorkspace',
  'GET /workspaces/{id}': 'getWorkspace',
  'PATCH /workspaces/{id}': 'updateWorkspace',
  'DELETE /workspaces/{id}': 'deleteWorkspace',
  'GET /workspaces/{id}/members': 'listWorkspaceMembers',
  'POST /workspaces/{id}/members': 'addWorkspaceMember',
  'PATCH /workspaces/{id}/members/{userId}': 'updateWorkspaceMember',
  'DELETE /workspaces/{id}/members/{userId}': 'removeWorkspaceMember',
  'POST /workspaces/{id}/invitations': 'createWorkspaceInvitation',
  'GET /workspaces/{id}/invitations': 'listWorkspaceInvitations',
  'POST /workspaces/{id}/invitations/{invitationId}/resend': 'sendWorkspaceInvitationAgain',
  'DELETE /workspaces/{id}/invitations/{invitationId}': 'deleteWorkspaceInvitation',
  // assets
  'GET /dam/assets': 'listAssets',
  'GET /dam/assets/{id}': 'getAsset',
  'PATCH /dam/assets/{id}': 'updateAsset',
  'DELETE /dam/assets/{id}': 'deleteAsset',
  'POST /dam/assets/bulk': 'updateAssetsInBulk',
  'GET /dam/assets/geo': 'listAssetLocations',
  'GET /dam/assets/timeline': 'getAssetTimeline',
  'GET /dam/map': 'getMapTiles',
  'POST /dam/assets/check-duplicates': 'checkDuplicates',
  // folders
  'POST /dam/folders': 'createFolder',
  'GET /dam/folders': 'listFolders',
  'GET /dam/folders/{id}': 'getFolder',
  'PATCH /dam/folders/{id}': 'updateFolder',
  'DELETE /dam/folders/{id}': 'deleteFolder',
  // collections
  'POST /dam/collections': 'createCollection',
  'GET /dam/collections': 'listCollections',
  'GET /dam/collections/{id}': 'getCollection',
  'PATCH /dam/collections/{id}': 'updateCollection',
  'DELETE /dam/collections/{id}': 'deleteCollection',
  'POST /dam/collections/{id}/assets': 'addCollectionAssets',
  'DELETE /dam/collections/{id}/assets': 'removeCollectionAssets',
  // custom metadata (issue #30)
  'GET /dam/fields': 'listFields',
  'POST /dam/fields': 'createField',
  'GET /dam/fields/{id}': 'getField',
  'PATCH /dam/fields/{id}': 'updateField',
  'DELETE /dam/fields/{id}': 'deleteField',
  'POST /dam/fields/{id}/options': 'addFieldOption',
  'PATCH /dam/fields/{id}/options/{optionId}': 'updateFieldOption',
  'POST /dam/fields/{id}/options/{optionId}/merge': 'mergeFieldOption',
  'POST /dam/bulk/fields': 'updateAssetFieldsInBulk',
  'POST /dam/bulk/fields/{id}/undo': 'restoreBulkFieldEdit',
  // trash
  'GET /dam/trash': 'listTrash',
  'DELETE /dam/trash': 'emptyTrash',
  'POST /dam/trash/restore': 'restoreTrashItems',
  // search
  'POST /search-engine/search': 'searchAll',
  'POST /search-engine/search-assets': 'searchAssets',
  'POST /search-engine/search-folders': 'searchFolders',
  'POST /search-engine/search-collages': 'searchCollections',
  'GET /search-engine/suggestions': 'listSearchSuggestions',
  // storage: multipart uploads, the one-request upload, downloads
  'GET /storage/getBucketConfig': 'getBucketConfig',
  'POST /storage/updateBucketConfig': 'updateBucketConfig',
  'GET /storage/start-upload': 'startUpload',
  'GET /storage/get-upload-url': 'getUploadPartUrl',
  'POST /storage/complete-upload': 'completeUpload',
  'GET /storage/list-parts': 'listUploadParts',
  'DELETE /storage/abort-upload': 'abortUpload',
  'GET /storage/download': 'downloadStorageObject',
  'DELETE /storage/delete': 'deleteStorageObject',
  'PUT /storage/parts/{uploadId}/{partNumber}': 'uploadPart',
  'POST /api/upload-asset': 'uploadAsset',
  // versions and media
  'GET /dam/assets/{id}/versions': 'listAssetVersions',
  'POST /dam/assets/{id}/versions': 'createAssetVersion',
  'POST /dam/versions/{id}/restore': 'restoreVersion',
  'GET /dam/versions/{id}/download': 'downloadVersion',
  'GET /dam/versions/{id}/preview': 'getVersionPreviewUrl',
  'DELETE /dam/versions/{id}': 'deleteVersion',
  'GET /media/versions/{id}/{kind}': 'downloadVersionMedia',
  'GET /media/icons/{file}': 'getFileTypeIcon',
  // activity
  'GET /dam/activity': 'listActivity',
  // admin
  'GET /admin/jobs': 'listJobs',
  'GET /admin/users': 'listUsers',
  'POST /admin/users': 'createUser',
  'PATCH /admin/users/{userId}': 'updateUser',
  'DELETE /admin/users/{userId}': 'deleteUser',
  'POST /admin/users/{userId}/password-link': 'createUserPasswordLink',
  'GET /admin/settings': 'getInstanceSettings',
  'PATCH /admin/settings': 'updateInstanceSettings',
  'GET /admin/sweeps': 'listSweepRefusals',
  'POST /admin/sweeps/{sweep}/confirm': 'confirmSweep',
  // small utilities
  'GET /api/browser-os': 'getBrowserOs',
  'POST /phone-number/validate': 'validatePhoneNumber',
  'GET /.well-known/apple-app-site-association': 'getAppleAppSiteAssociation',
  'GET /ios-association': 'getAppleAppSiteAssociationAlias',
  'GET /.well-known/assetlinks.json': 'getAndroidAssetLinks',
  // image generation and the image proxy
  'POST /generate-image': 'createImageGeneration',
  'GET /generate-image/{id}': 'getImageGeneration',
  'GET /api/image-proxy': 'getProxiedImage',
  'POST /api/image-proxy/sign': 'signImageProxyUrl',
  // conversions
  'POST /convert/image': 'createImageConversion',
  'POST /convert/video': 'createVideoConversion',
  'GET /convert/status/{id}': 'getConversion',
  'POST /convert/status/{id}/cancel': 'cancelConversion',
  'GET /convert/jobs': 'listConversions',
  // shared links
  'POST /shared': 'createSharedLink',
  'GET /shared': 'listSharedLinks',
  'GET /shared/{id}': 'getSharedLink',
  'PATCH /shared/{id}': 'updateSharedLink',
  'DELETE /shared/{id}': 'deleteSharedLink',
  'GET /shared/{id}/access-log': 'listSharedLinkAccessLog',
  'GET /shared/public/{key}': 'getPublicShare',
  'POST /shared/public/{key}/unlock': 'unlockPublicShare',
  'GET /shared/public/{key}/assets/{assetId}/download': 'downloadPublicShareAsset',
  'GET /shared/public/{key}/zip': 'downloadPublicShareZip',
  // zip
  'GET /zip/download': 'downloadZip',
  'POST /zip/link': 'signZipDownloadUrl',
  'GET /zip/list': 'listZipEntries',
  'GET /zip/extract': 'downloadZipEntry',
  'POST /zip/extract': 'createZipImport',
  'GET /zip/extract/{jobId}': 'getZipImport',
  // drives (drive-ext-1 Google Drive, drive-ext-2 Dropbox, drive-ext-3 OneDrive)
  'GET /drives': 'listDrives',
  'GET /drives/imports': 'listDriveImports',
  'GET /drives/imports/{id}': 'getDriveImport',
  'GET /drive-ext-1/auth': 'startGoogleDriveConnection',
  'GET /drive-ext-1/callback': 'completeGoogleDriveConnection',
  'GET /drive-ext-1/files': 'listGoogleDriveFiles',
  'GET /drive-ext-1/download': 'downloadGoogleDriveFile',
  'POST /drive-ext-1/upload': 'uploadAssetToGoogleDrive',
  'POST /drive-ext-1/import': 'createGoogleDriveImport',
  'DELETE /drive-ext-1/connection': 'deleteGoogleDriveConnection',
  'GET /drive-ext-2/auth': 'startDropboxConnection',
  'GET /drive-ext-2/callback': 'completeDropboxConnection',
  'GET /drive-ext-2/files': 'listDropboxFiles',
  'GET /drive-ext-2/download': 'downloadDropboxFile',
  'POST /drive-ext-2/upload': 'uploadAssetToDropbox',
  'POST /drive-ext-2/import': 'createDropboxImport',
  'DELETE /drive-ext-2/connection': 'deleteDropboxConnection',
  'GET /drive-ext-3/auth': 'startOneDriveConnection',
  'GET /drive-ext-3/callback': 'completeOneDriveConnection',
  'GET /drive-ext-3/files': 'listOneDriveFiles',
  'GET /drive-ext-3/download': 'downloadOneDriveFile',
  'POST /drive-ext-3/upload': 'uploadAssetToOneDrive',
  'POST /drive-ext-3/import': 'createOneDriveImport',
  'DELETE /drive-ext-3/connection': 'deleteOneDriveConnection',
  // payments
  'POST /payments/create-checkout': 'createCheckoutSession',
  'POST /payments/portal': 'createBillingPortalSession',
  'GET /payments/subscription': 'getSubscription',
  'GET /payments/plans': 'listPlans',
  'POST /payments/webhook': 'receiveStripeWebhook',
};

/** `METHOD /path` of a route as the OpenAPI document writes it: fastify's `:param` becomes `{param}`. */
export function operationKey(method: string, url: string): string {
  return `${method.toUpperCase()} ${url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`;
}

/**
 * Gives every documented route its operationId from OPERATION_IDS as it is registered. Called before
 * @fastify/swagger is registered; swagger keeps the route options it is handed and reads their schema when the
 * document is built, so the id is in /openapi.json either way. A route missing from the table keeps no id (the test
 * names it) rather than failing the app's start.
 */
export function registerOperationIds(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat().filter((m) => m !== 'HEAD');
    if (methods.length !== 1 || route.schema?.hide) return;
    const operationId = OPERATION_IDS[operationKey(methods[0]!, route.url)];
    // A copy: routes may share one schema object (two paths of one file), and each needs its own id.
    if (operationId) route.schema = { ...route.schema, operationId };
  });
}
