/**
 * Types of the API read from the SDK's generated OpenAPI types (sdk/src/schema.d.ts, `npm run sdk:generate`), so a
 * change of a route's schema breaks `vue-tsc`, not the user. Type-only: nothing of the SDK enters the bundle here.
 */
import type { paths } from '../../../sdk/src/schema';

export type { paths };
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Json<R> = R extends { content: { 'application/json': infer T } } ? T : never;

/** The JSON of an operation's success (200, else 201, else 202). */
export type ResponseOf<P extends keyof paths, M extends Method> = paths[P][M] extends { responses: infer R }
  ? R extends { 200: infer A }
    ? Json<A>
    : R extends { 201: infer A }
      ? Json<A>
      : R extends { 202: infer A }
        ? Json<A>
        : never
  : never;

/** `data` of an operation answering `{success: true, data}`. */
export type DataOf<P extends keyof paths, M extends Method> = ResponseOf<P, M> extends { data: infer D } ? D : never;

/** An operation's JSON body. */
export type BodyOf<P extends keyof paths, M extends Method> = paths[P][M] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

/** An operation's query parameters. */
export type QueryOf<P extends keyof paths, M extends Method> = paths[P][M] extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** The element type of an array type. */
export type ItemOf<A> = A extends readonly (infer T)[] ? T : never;
