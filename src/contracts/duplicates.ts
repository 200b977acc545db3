import { Type, type Static } from 'typebox';
import { Id } from '../http/schemas.js';

/** Hashes one check may ask about: a folder of a thousand files is one request. */
export const MAX_HASHES = 1000;

export const Sha256 = Type.String({ pattern: '^[0-9a-f]{64}$', minLength: 64, maxLength: 64, description: 'SHA-256 of a file: 64 lowercase hex digits' });

export const CheckDuplicatesBody = Type.Object(
  {
    workspaceId: Id('Workspace whose library is searched'),
    hashes: Type.Array(Sha256, { minItems: 1, maxItems: MAX_HASHES, description: `1 to ${MAX_HASHES} hashes; repeats count once` }),
  },
  { additionalProperties: false },
);

export const DuplicatesSchema = Type.Object({
  duplicates: Type.Array(
    Type.Object({
      sha256: Sha256,
      asset_ids: Type.Array(Type.Integer(), { description: 'Assets whose current file has this hash, oldest first' }),
    }),
    { description: 'Only the hashes the library has, in the order asked' },
  ),
});
export type DuplicatesView = Static<typeof DuplicatesSchema>;
