import type { FacetField, FileType, Orientation, SearchRequest, SortBy } from '../api/types';

/** What the library's search box and filter controls hold; mirrored in the page's query string. */
export interface LibraryQuery {
  q: string;
  fileTypes: FileType[];
  tags: string[];
  orientation: Orientation | '';
  visibility: 'public' | 'private' | '';
  /** Modified at or after this Unix time; null: any time. */
  modifiedSince: number | null;
  /** Date taken from and to, both days included: YYYY-MM-DD (UTC days, as the server's taken_year), or ''. */
  takenFrom: string;
  takenTo: string;
  /** camera_model and creator equal to this (case-insensitive), or ''. */
  camera: string;
  creator: string;
  /** Only assets whose file could not be read (issue #27); `?unreadable=1`. */
  unreadable: boolean;
  sort: SortBy;
  page: number;
  folderId: number | null;
  /** With a folder open: also the assets of every folder below it (issue #27); `?subfolders=1`. */
  subfolders: boolean;
  /**
   * The folders below folderId, searched with it while `subfolders` is on: the library fills them in from the
   * folder tree it holds (never in the URL).
   */
  belowIds?: readonly number[];
  collectionId: number | null;
}

export const PER_PAGE = 24;
/** Values counted per facet field (the most frequent first). */
export const MAX_FACET_VALUES = 10;

/** The file types to filter by; each one's label is search.fileTypes.<value>. */
export const FILE_TYPES: { value: FileType }[] = [
  { value: 'image' },
  { value: 'video' },
  { value: 'audio' },
  { value: 'document' },
  { value: 'archive' },
  { value: 'other' },
];

/** The orders to sort by; each one's label is search.sorts.<key>. */
export const SORTS: { value: SortBy; key: string }[] = [
  { value: 'modified_at:desc', key: 'modified_at_desc' },
  { value: 'modified_at:asc', key: 'modified_at_asc' },
  { value: 'created_at:desc', key: 'created_at_desc' },
  { value: 'created_at:asc', key: 'created_at_asc' },
  { value: 'display_file_name:asc', key: 'display_file_name_asc' },
  { value: 'display_file_name:desc', key: 'display_file_name_desc' },
  { value: 'file_size:desc', key: 'file_size_desc' },
  { value: 'file_size:asc', key: 'file_size_asc' },
  { value: 'taken_at:desc', key: 'taken_at_desc' },
  { value: 'taken_at:asc', key: 'taken_at_asc' },
];

/** "Modified within" choices; each one's label is search.within.d<days>. */
export const MODIFIED_WITHIN: { days: number }[] = [
  { days: 1 },
  { days: 7 },
  { days: 30 },
  { days: 365 },
];

export function emptyQuery(): LibraryQuery {
  return {
    q: '',
    fileTypes: [],
    tags: [],
    orientation: '',
    visibility: '',
    modifiedSince: null,
    takenFrom: '',
    takenTo: '',
    camera: '',
    creator: '',
    unreadable: false,
    sort: 'modified_at:desc',
    page: 1,
    folderId: null,
    subfolders: false,
    collectionId: null,
  };
}

/** Backtick-quoted, so spaces, commas and brackets inside a tag are plain text (backticks themselves cannot be quoted). */
const quote = (value: string) => `\`${value.replace(/`/g, '')}\``;

const DAY = 86_400;

/** Unix seconds of 00:00 UTC of a YYYY-MM-DD day; null for anything else (and for days that do not exist). */
export function dayStart(day: string): number | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return null;
  const [year, month, date] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const ms = Date.UTC(year, month - 1, date);
  const back = new Date(ms);
  if (back.getUTCFullYear() !== year || back.getUTCMonth() !== month - 1 || back.getUTCDate() !== date) return null;
  return ms / 1000;
}

/**
 * The digital_assets filter expression (seed 4.1): each condition in
 * parentheses, joined with &&. Tags each get their own condition, so an
 * asset must carry every tag asked for; file types are any of.
 */
export function assetFilter(query: LibraryQuery): string {
  const conditions: string[] = [];
  if (query.fileTypes.length === 1) conditions.push(`file_type:=${query.fileTypes[0]}`);
  else if (query.fileTypes.length > 1) conditions.push(`file_type:=[${query.fileTypes.join(', ')}]`);
  for (const tag of query.tags) conditions.push(`tags:=[${quote(tag)}]`);
  if (query.orientation) conditions.push(`orientation:=${query.orientation}`);
  if (query.visibility === 'public') conditions.push('visibility:=0');
  if (query.visibility === 'private') conditions.push('visibility:!=0');
  if (query.modifiedSince !== null) conditions.push(`modified_at:>=${query.modifiedSince}`);
  const from = dayStart(query.takenFrom);
  const to = dayStart(query.takenTo);
  if (from !== null) conditions.push(`taken_at:>=${from}`);
  if (to !== null) conditions.push(`taken_at:<=${to + DAY - 1}`);
  if (query.camera) conditions.push(`camera_model:=${quote(query.camera)}`);
  if (query.creator) conditions.push(`creator:=${quote(query.creator)}`);
  if (query.unreadable) conditions.push('unreadable:true');
  if (query.folderId !== null) {
    const below = query.subfolders ? (query.belowIds ?? []) : [];
    conditions.push(below.length ? `folder_id:=[${[query.folderId, ...below].join(', ')}]` : `folder_id:=${query.folderId}`);
  }
  if (query.collectionId !== null) conditions.push(`collection_id:=${query.collectionId}`);
  return conditions.map((c) => `(${c})`).join(' && ');
}

/** The search of a library state; `facets`: count values of these fields in the same request. */
export function searchRequest(query: LibraryQuery, workspaceId: number, facets: readonly FacetField[] = []): SearchRequest {
  const filter = assetFilter(query);
  return {
    request: { q: query.q.trim() || '*', collections: ['digital_assets'], sort_by: query.sort },
    ...(filter ? { filterQuery: { digital_assets: filter } } : {}),
    commonSearchParams: {
      query_by: 'search_name',
      per_page: PER_PAGE,
      page: query.page,
      ...(facets.length ? { facet_by: facets.join(','), max_facet_values: MAX_FACET_VALUES } : {}),
    },
    workspace_id_filter: String(workspaceId),
  };
}

/** How many filters are set (the badge on the Filters button). */
export function activeFilterCount(query: LibraryQuery): number {
  return [
    query.fileTypes.length > 0,
    query.tags.length > 0,
    query.orientation !== '',
    query.visibility !== '',
    query.modifiedSince !== null,
    query.takenFrom !== '' || query.takenTo !== '',
    query.camera !== '',
    query.creator !== '',
    query.unreadable,
  ].filter(Boolean).length;
}

/** The library state without any filter (the search words, sort, place and page stay). */
export function withoutFilters(query: LibraryQuery): LibraryQuery {
  return { ...query, fileTypes: [], tags: [], orientation: '', visibility: '', modifiedSince: null, takenFrom: '', takenTo: '', camera: '', creator: '', unreadable: false };
}

type RouteQuery = Record<string, string | null | (string | null)[] | undefined>;

const one = (v: RouteQuery[string]): string => (Array.isArray(v) ? (v[0] ?? '') : (v ?? ''));
const positive = (v: string): number | null => (/^[1-9]\d*$/.test(v) ? Number(v) : null);

/** Reads the library state from the URL, ignoring anything malformed. */
export function fromRoute(raw: RouteQuery): LibraryQuery {
  const q = emptyQuery();
  q.q = one(raw.q);
  const types = FILE_TYPES.map((t) => t.value);
  q.fileTypes = one(raw.type).split(',').filter((t): t is FileType => (types as string[]).includes(t));
  q.tags = one(raw.tags).split(',').map((t) => t.trim()).filter(Boolean);
  const orientation = one(raw.orientation);
  if (orientation === 'landscape' || orientation === 'portrait' || orientation === 'square') q.orientation = orientation;
  const visibility = one(raw.visibility);
  if (visibility === 'public' || visibility === 'private') q.visibility = visibility;
  q.modifiedSince = positive(one(raw.since));
  q.takenFrom = dayStart(one(raw.taken_from)) === null ? '' : one(raw.taken_from);
  q.takenTo = dayStart(one(raw.taken_to)) === null ? '' : one(raw.taken_to);
  q.camera = one(raw.camera).trim();
  q.creator = one(raw.creator).trim();
  q.unreadable = one(raw.unreadable) === '1';
  const sort = one(raw.sort);
  if (SORTS.some((s) => s.value === sort)) q.sort = sort as SortBy;
  q.page = positive(one(raw.page)) ?? 1;
  q.folderId = positive(one(raw.folder));
  q.subfolders = q.folderId !== null && one(raw.subfolders) === '1';
  q.collectionId = positive(one(raw.collection));
  return q;
}

/** The URL query of a library state; defaults are left out. */
export function toRoute(query: LibraryQuery, workspaceId: number | null): Record<string, string> {
  const out: Record<string, string> = {};
  if (workspaceId) out.ws = String(workspaceId);
  if (query.q) out.q = query.q;
  if (query.fileTypes.length) out.type = query.fileTypes.join(',');
  if (query.tags.length) out.tags = query.tags.join(',');
  if (query.orientation) out.orientation = query.orientation;
  if (query.visibility) out.visibility = query.visibility;
  if (query.modifiedSince !== null) out.since = String(query.modifiedSince);
  if (query.takenFrom) out.taken_from = query.takenFrom;
  if (query.takenTo) out.taken_to = query.takenTo;
  if (query.camera) out.camera = query.camera;
  if (query.creator) out.creator = query.creator;
  if (query.unreadable) out.unreadable = '1';
  if (query.sort !== 'modified_at:desc') out.sort = query.sort;
  if (query.page > 1) out.page = String(query.page);
  if (query.folderId !== null) out.folder = String(query.folderId);
  if (query.folderId !== null && query.subfolders) out.subfolders = '1';
  if (query.collectionId !== null) out.collection = String(query.collectionId);
  return out;
}
