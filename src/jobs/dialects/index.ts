import type { DialectName } from '../../db/dialects/types.js';
import { lockCandidates as postgres } from './postgres.js';
import { lockCandidates as sqlite } from './sqlite.js';
import type { LockCandidates } from '../../db/job-locks.js';

export const lockCandidates: Readonly<Record<DialectName, LockCandidates>> = { sqlite, postgres };
