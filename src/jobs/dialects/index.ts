import type { DialectName } from '../../db/dialects/types.js';
import { lockCandidates as postgres } from './postgres.js';
import { lockCandidates as sqlite } from './sqlite.js';
import type { LockCandidates } from './types.js';

export const lockCandidates: Readonly<Record<DialectName, LockCandidates>> = { sqlite, postgres };
