import type { operations } from './schema.js';

/**
 * Request and answer types by operationId (src/http/operation-ids.ts on the server), which never changes once
 * released, rather than by path: `OperationAnswer<'listFolders'>['data']['items'][number]`.
 */
export type OperationId = keyof operations;

/** The JSON answer of an operation for a status (default 200). */
export type OperationAnswer<Id extends OperationId, Status extends number = 200> =
  operations[Id]['responses'] extends { [S in Status]: { content: { 'application/json': infer T } } } ? T : never;

/** The JSON request body of an operation. */
export type OperationBody<Id extends OperationId> =
  operations[Id] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

/** The query parameters of an operation. */
export type OperationQuery<Id extends OperationId> =
  operations[Id] extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
