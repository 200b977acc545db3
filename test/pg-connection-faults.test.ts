import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../src/db/database.js';
import { DATABASE_ERROR, faultOf } from '../src/faults/classify.js';
import { freePort } from './helpers/app.js';
import { pgUrl } from './helpers/databases.js';

/**
 * Issue #37, PostgreSQL restarting: what the pool does when connections break (src/db/dialects/postgres.ts and
 * postgres-client.ts). The restart itself, under load and against the built server, is test/faults/pg-restart.test.ts.
 */
describe.skipIf(!pgUrl)('PostgreSQL connections that break', () => {
  const handles: DatabaseHandle[] = [];
  const open = (url: string, options: Parameters<typeof openDatabase>[1] = {}) => {
    const handle = openDatabase(url, options);
    handles.push(handle);
    return handle;
  };
  const admin = new pg.Client({ connectionString: pgUrl });
  let adminConnected = false;
  const terminate = async (pid: number) => {
    if (!adminConnected) {
      await admin.connect();
      adminConnected = true;
    }
    await admin.query('select pg_terminate_backend($1)', [pid]);
  };
  const backendPid = async (db: DatabaseHandle['db']) => (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0]!.pid;

  afterEach(async () => {
    await Promise.all(handles.splice(0).map((h) => h.close()));
  });
  afterAll(async () => {
    if (adminConnected) await admin.end();
  });

  it('marks a refused connection as the database being unavailable', async () => {
    const url = new URL(pgUrl!);
    url.port = String(await freePort());
    const { db } = open(url.toString(), { connectTimeoutMs: 2000 });
    const err = await sql`select 1`.execute(db).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as { code?: string }).code).toBe('ECONNREFUSED');
    expect((err as Record<symbol, unknown>)[DATABASE_ERROR]).toBe(true);
    expect(faultOf(err)).toBe('database_unavailable');
  });

  it('cancels a statement past the statement timeout (57014, the database unavailable) and goes on', async () => {
    const { db } = open(pgUrl!, { statementTimeoutMs: 300 });
    const err = await sql`select pg_sleep(3)`.execute(db).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as { code?: string }).code).toBe('57014');
    expect(faultOf(err)).toBe('database_unavailable');
    expect((await sql<{ one: number }>`select 1 as one`.execute(db)).rows).toEqual([{ one: 1 }]);
  });

  it('survives the server closing a connection that is checked out between two queries, then connects anew', async () => {
    const handle = open(pgUrl!);
    const failed = await handle.db.connection().execute(async (conn) => {
      await terminate(await backendPid(conn));
      // The server's "terminating connection" arrives while no query runs: before ResilientClient, an 'error' nobody heard.
      await new Promise((resolve) => setTimeout(resolve, 300));
      return sql`select 1`.execute(conn).then(
        () => undefined,
        (e: unknown) => e,
      );
    });
    expect(faultOf(failed)).toBe('database_unavailable');
    expect((await sql<{ one: number }>`select 1 as one`.execute(handle.db)).rows).toEqual([{ one: 1 }]);
  });

  it('tells of an idle pooled connection the server closed, and connects anew', async () => {
    const handle = open(pgUrl!);
    const heard: Error[] = [];
    handle.support.onConnectionError!((err) => heard.push(err));
    const pid = await backendPid(handle.db);
    await terminate(pid);
    await expect.poll(() => heard.length).toBe(1);
    expect(faultOf(heard[0])).toBe('database_unavailable');
    expect(await backendPid(handle.db)).not.toBe(pid);
  });

  it('gives up a statement the server does not answer (5 s past the statement timeout) and drops its connection', async () => {
    const handle = open(pgUrl!, { statementTimeoutMs: 200, maxConnections: 1 });
    const started = performance.now();
    const failed = await handle.db.connection().execute(async (conn) => {
      // As a server that is gone without closing the socket: the server-side timeout is off for this statement.
      await sql`set statement_timeout = 0`.execute(conn);
      return sql`select pg_sleep(8)`.execute(conn).then(
        () => undefined,
        (e: unknown) => e,
      );
    });
    const seconds = (performance.now() - started) / 1000;
    expect((failed as Error).message).toBe('Query read timeout');
    expect(faultOf(failed)).toBe('database_unavailable');
    expect(seconds).toBeGreaterThan(5);
    expect(seconds).toBeLessThan(7.5);
    // The one connection of the pool was stuck in pg_sleep: a fresh one answers at once.
    const answered = performance.now();
    expect((await sql<{ one: number }>`select 1 as one`.execute(handle.db)).rows).toEqual([{ one: 1 }]);
    expect(performance.now() - answered).toBeLessThan(2000);
  });
});
