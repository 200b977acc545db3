import { Type, type TSchema } from 'typebox';

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

/** seed 7.2: unexpected failures answer `{ error, stack }`, stack only in development. */
export const InternalErrorBody = Type.Object({ error: Type.String(), stack: Type.Optional(Type.String()) });

export const SuccessFlag = Type.Object({ success: Type.Literal(true) });

/** Positive integer id in a path segment (`/:id`). */
export const IdParams = Type.Object({ id: Type.Integer({ minimum: 1, description: 'Numeric id' }) });

export const Role = Type.Union([Type.Literal('viewer'), Type.Literal('manager'), Type.Literal('admin')], {
  description: 'viewer < manager < admin',
});

export const Visibility = Type.Integer({ minimum: 0, description: '0 = public, any other value = private' });

export const Tags = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100, uniqueItems: true });

export const Paging = {
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 250, default: 50 })),
};
