/**
 * Shapes of the public API the client uses, derived from the SDK's generated OpenAPI types (./schema.ts): a schema
 * change fails `vue-tsc`. Only what the document cannot give stays written here, each with its reason.
 */
import type { BodyOf, DataOf, ItemOf, ResponseOf } from './schema';

/** seed 2.4 */
/** POST /auth/login answers without the {success, data} envelope (seed 2.4). */
export type AuthResult = ResponseOf<'/auth/login', 'post'>;
export type User = AuthResult['user'];
export type WorkspaceItem = ItemOf<AuthResult['workspaces']>;
export type Role = WorkspaceItem['role'];

/** GET/PATCH /auth/me: the user plus the account's own fields. */
export type AccountUser = ResponseOf<'/auth/me', 'get'>['user'];

export type PhoneCheck = DataOf<'/phone-number/validate', 'post'>;
/** Why POST /phone-number/validate found a number not valid. */
export type PhoneReason = NonNullable<PhoneCheck['reason']>;

/** The envelope and page of every list (generic: the document spells them out per route). */
export interface Envelope<T> {
  success: true;
  data: T;
}

export interface Page<T> {
  items: T[];
  page: number;
  per_page: number;
  total: number;
}

export type Member = ItemOf<DataOf<'/workspaces/{id}/members', 'get'>>;

export type Asset = ItemOf<DataOf<'/dam/assets', 'get'>['items']>;
export type FileType = Asset['file_type'];
export type Orientation = NonNullable<Asset['orientation']>;

/** GET /dam/assets/:id: an asset with its embedded metadata (issue #12). */
export type AssetDetail = DataOf<'/dam/assets/{id}', 'get'>;
/** The fields a manager may edit of those read from the file (issue #12). */
export type EditableEmbeddedField = ItemOf<AssetDetail['metadata_edited']>;
/** Issue #12: what the server read from the asset's current file (null: the file has none, or it was not read yet). */
export type EmbeddedFields = Pick<
  AssetDetail,
  | 'taken_at'
  | 'camera_make'
  | 'camera_model'
  | 'lens'
  | 'iso'
  | 'exposure'
  | 'aperture'
  | 'focal_length'
  | 'gps_lat'
  | 'gps_lon'
  | 'duration'
  | 'color_space'
  | 'caption'
  | 'creator'
  | 'copyright'
  | 'usage_terms'
  | 'keywords'
  | 'metadata_edited'
  | 'metadata_version_id'
  | 'embedded_metadata'
>;

export type Folder = ItemOf<DataOf<'/dam/folders', 'get'>['items']>;
export type Collection = ItemOf<DataOf<'/dam/collections', 'get'>['items']>;
export type CollectionDetail = DataOf<'/dam/collections/{id}', 'get'>;

/** seed 2.1 */
export type SearchRequest = BodyOf<'/search-engine/search', 'post'>;
export type SearchCollection = ItemOf<SearchRequest['request']['collections']>;
export type SortBy = NonNullable<SearchRequest['request']['sort_by']>;
export type SearchResponse = ResponseOf<'/search-engine/search', 'post'>;
export type SearchResult = ItemOf<SearchResponse['results']>;
/** seed 2.2 */
export type SearchDocument = ItemOf<SearchResult['hits']>['document'];
/** One facet_by field's most frequent values in the whole filtered result. */
export type FacetCounts = ItemOf<NonNullable<SearchResult['facet_counts']>>;
/**
 * Issue #12: the fields a search counts values of. Local: the document declares `facet_by` as a comma-separated
 * string, so the field names cannot be derived from it.
 */
export type FacetField = 'file_type' | 'tags' | 'orientation' | 'visibility' | 'camera_model' | 'creator' | 'taken_year';

/** seed 2.5 */
/** GET /dam/assets/:id/versions answers a bare array (seed 2.5). */
export type Version = ItemOf<ResponseOf<'/dam/assets/{id}/versions', 'get'>>;
/** Issue #15: a video version's web-playable MP4. */
export type VideoPreview = NonNullable<Version['video_preview']>;
export type VersionPreview = DataOf<'/dam/versions/{id}/preview', 'get'>;

export type SocialConfig = DataOf<'/auth/social/config', 'get'>;

/** seed 2.3 */
export type UploadPart = ItemOf<BodyOf<'/storage/complete-upload', 'post'>['parts']>;

/** Issue #11: GET /dam/trash. */
export type TrashItem = ItemOf<DataOf<'/dam/trash', 'get'>['items']>;
export type TrashKind = TrashItem['kind'];
export type TrashEmptied = DataOf<'/dam/trash', 'delete'>;

/** Issue #11: POST /dam/assets/bulk. */
export type BulkRequest = BodyOf<'/dam/assets/bulk', 'post'>;
export type BulkAction = BulkRequest['action'];
/** One requested id and what became of it (bulk actions, restore: only it has `kind`), in the order requested. */
export type ItemResult = ItemOf<DataOf<'/dam/assets/bulk', 'post'>['results']> & Partial<Pick<ItemOf<DataOf<'/dam/trash/restore', 'post'>['results']>, 'kind'>>;

/** Issue #11: GET /dam/activity. */
export type ActivityPage = DataOf<'/dam/activity', 'get'>;
export type ActivityEntry = ItemOf<ActivityPage['items']>;
export type ActivityAction = ActivityEntry['action'];
export type FieldChange = ActivityEntry['changes'][string];

/** Issue #13: POST /generate-image. */
export type GenerateImageRequest = BodyOf<'/generate-image', 'post'>;
export type ImageGeneration = DataOf<'/generate-image/{id}', 'get'>;

/** Issue #15: POST /convert/image and /convert/video. */
export type ConvertImageRequest = BodyOf<'/convert/image', 'post'>;
export type ConvertVideoRequest = BodyOf<'/convert/video', 'post'>;
export type ImageFormat = ConvertImageRequest['format'];
export type VideoFormat = ConvertVideoRequest['format'];
export type ConversionTarget = NonNullable<ConvertImageRequest['target']>;
export type Fit = NonNullable<ConvertImageRequest['fit']>;
/** Issue #15: a conversion as POST /convert/* and GET /convert/status/:id answer it. */
export type Conversion = DataOf<'/convert/status/{id}', 'get'>;
export type ConversionStatus = Conversion['status'];
export type ConversionPage = DataOf<'/convert/jobs', 'get'>;
