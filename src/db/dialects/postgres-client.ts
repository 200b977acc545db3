import pg from 'pg';
import { DATABASE_ERROR } from '../../faults/classify.js';

/**
 * Marks an error as raised by the database driver (issue #37), so that faultOf() takes a socket errno in it
 * (ECONNREFUSED while PostgreSQL restarts, ECONNRESET when it goes away) for the database, not for the object store
 * or an outside fetch. Node's connect may answer an AggregateError (one error per address tried): those are marked too.
 */
export function markDatabaseError<T>(err: T): T {
  const seen = new Set<unknown>();
  const mark = (e: unknown): void => {
    if (typeof e !== 'object' || e === null || seen.has(e) || seen.size > 8) return;
    seen.add(e);
    try {
      (e as { [DATABASE_ERROR]?: boolean })[DATABASE_ERROR] = true;
    } catch {
      // a frozen error stays unmarked
    }
    mark((e as { cause?: unknown }).cause);
    if (e instanceof AggregateError) for (const inner of e.errors as unknown[]) mark(inner);
  };
  mark(err);
  return err;
}

type AnyFunction = (...args: unknown[]) => unknown;

/** pg calls back with (err, ...results): the error marked, the rest as they were. */
function withMarkedCallback(args: unknown[], onError?: (err: unknown) => void): unknown[] {
  const last = args.at(-1);
  if (typeof last !== 'function') return args;
  const callback = last as AnyFunction;
  return [
    ...args.slice(0, -1),
    (err: unknown, ...rest: unknown[]) => {
      if (err) {
        markDatabaseError(err);
        onError?.(err);
      }
      return callback(err, ...rest);
    },
  ];
}

function withMarkedPromise(result: unknown, onError?: (err: unknown) => void): unknown {
  if (!(result instanceof Promise)) return result;
  return result.catch((err: unknown) => {
    markDatabaseError(err);
    onError?.(err);
    throw err;
  });
}

/**
 * pg's Client as the pool creates it (PoolConfig.Client), for a service that outlives PostgreSQL restarts:
 *
 * - every error of connect() and query() is marked as the database's (markDatabaseError);
 * - it always listens for 'error': pg-pool listens only while a client is idle in the pool, so a connection that
 *   the server closes while it is checked out between two queries (a transaction waiting for the object store, the
 *   connection holding a housekeeping leader lock) would emit 'error' to nobody, which ends the process. The next
 *   query on it fails instead ("not queryable", a database fault) and the pool drops it when it is released;
 * - a query that got no answer within query_timeout ends the connection: pg answers "Query read timeout" but keeps
 *   the query running on the socket, and the pool would hand the stuck connection to the next request.
 */
export class ResilientClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on('error', () => {
      // Reported where it matters: the pool's 'error' (idle connections) or the next query's rejection.
    });
  }
}

const base = pg.Client.prototype as unknown as Record<'connect' | 'query', AnyFunction>;
const resilient = ResilientClient.prototype as unknown as Record<'connect' | 'query', AnyFunction>;
// On the prototype rather than as class methods: pg's overloads (callback, promise, submittable) pass through unchanged.
resilient.connect = function (this: pg.Client, ...args: unknown[]): unknown {
  return withMarkedPromise(base.connect.apply(this, withMarkedCallback(args)));
};
resilient.query = function (this: pg.Client, ...args: unknown[]): unknown {
  const onError = (err: unknown) => {
    if (err instanceof Error && err.message === 'Query read timeout') void this.end().catch(() => undefined);
  };
  return withMarkedPromise(base.query.apply(this, withMarkedCallback(args, onError)), onError);
};
