import type { SelectQueryBuilder } from 'kysely';
import type { Database } from './schema.js';

/** The select of claimable job ids that a claim turns into an UPDATE ... WHERE id IN (...). */
export type ClaimCandidates = SelectQueryBuilder<Database, 'jobs', { id: number }>;

/** How one dialect keeps two workers from claiming the same job. */
export type LockCandidates = (candidates: ClaimCandidates) => ClaimCandidates;
