import { Type, type TSchema } from 'typebox';
import { SORT_ORDERS } from '../domain/sort-orders.js';

/** `{ success: true, data }`: the envelope of every endpoint whose payload the seed leaves "not shown" (seed 7.2). */
export function Envelope<T extends TSchema>(data: T) {
  return Type.Object({ success: Type.Literal(true), data });
}

export function ok<T>(data: T): { success: true; data: T } {
  return { success: true, data };
}

/** Error body of every 4xx: a message that names the problem, and a stable code. */
export const ErrorBody = Type.Object(
  {
    error: Type.String(),
    code: Type.String(),
    field: Type.Optional(Type.String()),
  },
  { additionalProperties: true, description: 'Error: a message naming the problem and a stable code' },
);

/**
 * Any request whose headers exceed Node's limit (16 KiB in all by default) is refused by the HTTP server before any
 * route sees it, with Fastify's client-error body. Listed on the operations that have no refusal of their own.
 */
export const HeadersTooLarge = Type.Object(
  { error: Type.String(), message: Type.String(), statusCode: Type.Literal(431) },
  { description: "Request headers over Node's limit (16 KiB in all by default), refused before the operation runs" },
);

/** seed 7.2: unexpected failures answer `{ error, stack }`, stack only in development. */
export const InternalErrorBody = Type.Object({ error: Type.String(), stack: Type.Optional(Type.String()) });

export const SuccessFlag = Type.Object({ success: Type.Literal(true) });

/** Ids are positive integers that JavaScript holds exactly (at most 2^53 - 1). */
export const MAX_ID = Number.MAX_SAFE_INTEGER;
export const Id = (description?: string) => Type.Integer({ minimum: 1, maximum: MAX_ID, ...(description ? { description } : {}) });

/**
 * An id in a JSON body where the seed's wire format is a string (seed 2.1 workspace_id_filter, 2.3 upload
 * session values): decimal digits as a string, or a number. Declared as a union, so a JSON body still gets
 * exactly its declared types; `wireId()` reads it as a number.
 */
export const WireId = (description: string) =>
  Type.Union([Type.String({ pattern: '^[1-9][0-9]{0,14}$', maxLength: 15 }), Id()], { description: `${description}: a string of digits or a number` });
export const wireId = (value: string | number): number => Number(value);

/** Positive integer id in a path segment (`/:id`). */
export const IdParams = Type.Object({ id: Id('Numeric id') });

/**
 * A name people read (workspace, folder, collection, asset, tag, account): not blank, and free of control characters
 * and bidirectional overrides (src/http/validation.ts, `x-plain-text`).
 */
export const PlainName = (maxLength: number, description = 'Not blank; no control or bidirectional-override characters') =>
  Type.String({ minLength: 1, maxLength, pattern: '\\S', 'x-plain-text': true, description });

export const Role = Type.Union([Type.Literal('viewer'), Type.Literal('manager'), Type.Literal('admin')], {
  description: 'viewer < manager < admin',
});

/**
 * What `visibility` means (issue #27; docs/architecture/private-assets.md; the rule is domain/asset-visibility.ts).
 * Folders and collections carry the same field as a label: it hides nothing, their assets show by their own visibility.
 */
export const VISIBILITY_MEANING =
  '0 = public: every member of the workspace sees the asset, and only public assets reach a shared link. Any other value = ' +
  'private: only its uploader and the managers and admins of the workspace see it; for other members it does not exist ' +
  '(404, and absent from every list, count, search, facet and download). On a folder or collection it is a label that hides nothing';

/** Stored as a 32-bit integer on PostgreSQL; 0 and 1 are what clients use. */
const visibilityOptions = { minimum: 0, maximum: 2_147_483_647, description: `${VISIBILITY_MEANING} (up to 2^31 - 1)` };
export const Visibility = Type.Integer(visibilityOptions);
/** Visibility of something being created: public unless said otherwise. */
export const NewVisibility = Type.Integer({ ...visibilityOptions, default: 0 });

export const Tags = Type.Array(PlainName(100, 'A tag: not blank; no control or bidirectional-override characters'), {
  maxItems: 100,
  uniqueItems: true,
});

/** Pages past the last answer an empty list; the cap keeps offsets far inside what both databases take. */
export const MAX_PAGE = 1_000_000;
export const MAX_PER_PAGE = 250;

export const Paging = {
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1 })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PER_PAGE, default: 50 })),
};

/**
 * `sort_by` of searches and catalog lists (src/domain/sort-orders.ts): `field:direction`, ties by id in the
 * same direction. Names sort naturally and case-insensitively (img2 < img10 < IMG11).
 */
export const SortBy = (description: string) => Type.Union(SORT_ORDERS.map((order) => Type.Literal(order)), { description });
