import { AppError, appError } from '../errors.js';
import { StoreError } from '../storage/object-store.js';

/**
 * The faults an operator meets (issue #37), each answered by a code of its own rather than a 500: a full disk, a
 * database that is restarting or failing over, an object store that errs or stalls. Everything else stays what it was.
 */
export type FaultClass = 'disk_full' | 'database_unavailable' | 'storage_unavailable';

export const FAULT_CLASSES: readonly FaultClass[] = ['disk_full', 'database_unavailable', 'storage_unavailable'];

/** The error code each fault is answered with, and the Retry-After (seconds) sent with it. */
export const FAULT_ANSWERS = {
  disk_full: { code: 'INSUFFICIENT_STORAGE', retryAfter: 60 },
  database_unavailable: { code: 'DATABASE_UNAVAILABLE', retryAfter: 5 },
  storage_unavailable: { code: 'STORAGE_UNAVAILABLE', retryAfter: 10 },
} as const satisfies Record<FaultClass, { code: AppError['code']; retryAfter: number }>;

/** errno codes of a file system that has no room left (ENOSPC) or a quota that is used up (EDQUOT). */
const DISK_FULL_ERRNO = new Set(['ENOSPC', 'EDQUOT']);

/**
 * PostgreSQL SQLSTATEs of a server that is going away or not there yet: class 08 (connection exception), 57P01-57P03
 * (admin shutdown, crash shutdown, cannot connect now: a restart), 53300 (too many connections), 57014 (the
 * statement timeout cancelled the query), 25006 (read-only: a standby during a failover).
 */
const PG_UNAVAILABLE = /^(08...|57P0[123]|53300|57014|25006)$/;

/** What node-postgres throws when the socket under a query or a pool checkout breaks or times out. */
const PG_CONNECTION_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Client was closed and is not queryable',
  'Query read timeout',
];

/** Socket errno codes; a database error only when the database driver raised it (marked by the PostgreSQL dialect). */
const SOCKET_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** Marks an error as raised by the database driver (so a socket errno in it means the database). */
export const DATABASE_ERROR = Symbol.for('dam.databaseError');

function classifyOne(err: object): FaultClass | undefined {
  const e = err as { code?: unknown; message?: unknown; [DATABASE_ERROR]?: boolean };
  const code = typeof e.code === 'string' ? e.code : undefined;
  if (err instanceof AppError) {
    for (const fault of FAULT_CLASSES) if (FAULT_ANSWERS[fault].code === err.code) return fault;
    return undefined;
  }
  if (err instanceof StoreError) return err.unavailable ? 'storage_unavailable' : undefined;
  if (code && DISK_FULL_ERRNO.has(code)) return 'disk_full';
  // better-sqlite3: "database or disk is full"; its extended codes start with the primary one.
  if (code?.startsWith('SQLITE_FULL') || code?.startsWith('SQLITE_IOERR_WRITE')) return 'disk_full';
  if (code && PG_UNAVAILABLE.test(code) && 'severity' in err) return 'database_unavailable';
  const message = typeof e.message === 'string' ? e.message : '';
  if (PG_CONNECTION_MESSAGES.some((m) => message.startsWith(m))) return 'database_unavailable';
  if (e[DATABASE_ERROR] && code && SOCKET_ERRNO.has(code)) return 'database_unavailable';
  return undefined;
}

/** The fault an error is, looking through its causes (an AggregateError's too), or undefined. */
export function faultOf(err: unknown): FaultClass | undefined {
  const seen = new Set<unknown>();
  const queue: unknown[] = [err];
  while (queue.length > 0) {
    const next = queue.shift();
    if (typeof next !== 'object' || next === null || seen.has(next) || seen.size > 8) continue;
    seen.add(next);
    const fault = classifyOne(next);
    if (fault) return fault;
    queue.push((next as { cause?: unknown }).cause);
    if (next instanceof AggregateError) queue.push(...(next.errors as unknown[]));
  }
  return undefined;
}

/** The answer for a fault: its AppError (keeping `detail` as the message when given). */
export function faultError(fault: FaultClass, detail?: string): AppError {
  return appError(FAULT_ANSWERS[fault].code, detail);
}

/**
 * A failure of the object store as the service answers it: a missing object is NOT_FOUND, a store that is down or
 * too slow STORAGE_UNAVAILABLE (503), a full disk INSUFFICIENT_STORAGE (507), anything else S3_ERROR (502, seed 7.1).
 * `what` prefixes the provider's message ("Storing the file failed").
 */
export function storeFailure(err: unknown, what?: string): AppError {
  if (err instanceof AppError) return err;
  const fault = faultOf(err);
  if (fault) return faultError(fault);
  if (err instanceof StoreError && err.providerCode === 'NoSuchKey') return appError('NOT_FOUND', 'The file of this asset is missing from storage');
  const message = err instanceof Error ? err.message : String(err);
  return appError('S3_ERROR', what ? `${what}: ${message}` : message);
}
