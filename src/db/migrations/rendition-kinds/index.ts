import type { Kysely } from 'kysely';
import type { DialectName, DialectSupport } from '../../dialects/types.js';
import { allowRenditionKinds as postgres } from './postgres.js';
import { allowRenditionKinds as sqlite } from './sqlite.js';

/** Widens the `kind` CHECK of version_renditions (migration 0017): the one DDL step whose SQL differs by dialect. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const allowRenditionKinds: Readonly<Record<DialectName, (db: Kysely<any>, d: DialectSupport, kinds: readonly string[]) => Promise<void>>> = {
  sqlite,
  postgres,
};
