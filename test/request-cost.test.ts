import SQLite from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import type { DatabaseHandle } from '../src/db/database.js';
import { withStatementCache } from '../src/db/dialects/sqlite-statements.js';
import { prepared } from '../src/db/prepared.js';
import { findRole } from '../src/repositories/workspaces.js';
import { makeAsset } from './helpers/catalog-factories.js';
import { testConfig } from './helpers/app.js';
import { dialects, openTestDatabase } from './helpers/databases.js';

/**
 * The per-request caches of issue #18 (compiled statements, verified token signatures) must not
 * change what is answered: two apps on one database stand for two API processes.
 */
describe.each(dialects)('per-request caches on %s', (dialect) => {
  let database: DatabaseHandle;
  let a: FastifyInstance;
  let b: FastifyInstance;
  beforeAll(async () => {
    database = await openTestDatabase(dialect);
    const config = testConfig();
    a = await buildApp(config, { database, logger: false });
    b = await buildApp(config, { database, logger: false });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await database.close();
  });

  const me = (app: FastifyInstance, token: string) => app.inject({ method: 'GET', url: '/auth/me', headers: { authorization: `Bearer ${token}` } });

  async function register(email: string): Promise<{ token: string; workspaceId: number; userId: number }> {
    const res = await a.inject({ method: 'POST', url: '/auth/register', payload: { email, password: 'correct horse battery', name: email } });
    expect(res.statusCode).toBe(201);
    const body = res.json<{ token: string; user: { id: number }; workspaces: { id: number }[] }>();
    return { token: body.token, workspaceId: body.workspaces[0]!.id, userId: body.user.id };
  }

  it('a logout in one process refuses the token in every other at once, though its signature is cached there', async () => {
    const { token } = await register(`revoke-${dialect}@example.test`);
    // Used on both: each process now holds the token's verified signature.
    for (let i = 0; i < 3; i += 1) {
      expect((await me(a, token)).statusCode).toBe(200);
      expect((await me(b, token)).statusCode).toBe(200);
    }
    expect((await a.inject({ method: 'POST', url: '/auth/logout', headers: { authorization: `Bearer ${token}` } })).statusCode).toBe(200);
    const refused = await me(b, token);
    expect(refused.statusCode).toBe(401);
    expect(refused.json<{ code: string }>().code).toBe('INVALID_TOKEN');
    expect((await me(a, token)).statusCode).toBe(401);
  });

  it('a tampered token is refused even right after the genuine one was cached', async () => {
    const { token } = await register(`tamper-${dialect}@example.test`);
    expect((await me(b, token)).statusCode).toBe(200);
    const [header, payload, signature] = token.split('.');
    const flipped = `${signature!.slice(0, -2)}${signature!.endsWith('AA') ? 'BB' : 'AA'}`;
    expect((await me(b, `${header}.${payload}.${flipped}`)).statusCode).toBe(401);
    expect((await me(b, `${token}x`)).statusCode).toBe(401);
  });

  it('each user gets their own answer from the compiled statements (session, user, workspaces, role)', async () => {
    const one = await register(`one-${dialect}@example.test`);
    const two = await register(`two-${dialect}@example.test`);
    const answer = async (token: string) => (await me(b, token)).json<{ user: { email: string }; workspaces: { id: number }[] }>();
    expect((await answer(one.token)).user.email).toBe(`one-${dialect}@example.test`);
    expect((await answer(two.token)).user.email).toBe(`two-${dialect}@example.test`);
    expect((await answer(two.token)).workspaces.map((w) => w.id)).toEqual([two.workspaceId]);
    // The role check: a member of their own workspace, a stranger to the other (404).
    const list = (token: string, ws: number) => b.inject({ method: 'GET', url: `/dam/assets?workspaceId=${ws}`, headers: { authorization: `Bearer ${token}` } });
    expect((await list(one.token, one.workspaceId)).statusCode).toBe(200);
    expect((await list(one.token, two.workspaceId)).statusCode).toBe(404);
    // Inside a transaction (another handle): the statement is compiled for it and sees its writes.
    await database.db.transaction().execute(async (trx) => {
      await trx.insertInto('workspace_members').values({ workspace_id: two.workspaceId, user_id: one.userId, role: 'viewer', created_at: 0 }).execute();
      expect(await findRole(trx, two.workspaceId, one.userId)).toBe('viewer');
      // (Not read through the app's handle here: SQLite's one connection is the transaction's until it ends.)
    });
    expect(await findRole(database.db, two.workspaceId, one.userId)).toBe('viewer');
  });

  it('prepared() places each argument wherever Kysely puts it, and refuses a statement that is not a fixed shape', async () => {
    const byTwo = prepared((db: DatabaseHandle['db'], userId: number, email: string) =>
      db.selectFrom('users').select(['id', 'email']).where('email', '=', email).where('id', '=', userId),
    );
    const user = await register(`shape-${dialect}@example.test`);
    expect(await byTwo(database.db, user.userId, `shape-${dialect}@example.test`)).toEqual([{ id: user.userId, email: `shape-${dialect}@example.test` }]);
    expect(await byTwo(database.db, user.userId, 'nobody@example.test')).toEqual([]);
    const literal = prepared((db: DatabaseHandle['db'], _id: number) => db.selectFrom('users').select('id').where('email', '=', 'fixed@example.test'));
    await expect(literal(database.db, 1)).rejects.toThrow(/not a fixed shape/);
  });

  it('a list answers the same total whether its page tells it or it is counted (empty, partial, full and past the end)', async () => {
    const user = await register(`totals-${dialect}@example.test`);
    const page = async (query: string) => {
      const res = await b.inject({ method: 'GET', url: `/dam/assets?workspaceId=${user.workspaceId}&${query}`, headers: { authorization: `Bearer ${user.token}` } });
      expect(res.statusCode).toBe(200);
      const { data } = res.json<{ data: { items: { id: number }[]; total: number } }>();
      return { ids: data.items.map((i) => i.id), total: data.total };
    };
    expect(await page('page=1&per_page=2')).toEqual({ ids: [], total: 0 });
    const ids: number[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await makeAsset(database.db, user.workspaceId)).id);
    // One in the trash and one still uploading are neither listed nor counted.
    await makeAsset(database.db, user.workspaceId, { status: 'uploading' });
    const trashed = await makeAsset(database.db, user.workspaceId);
    await database.db.updateTable('assets').set({ deleted_at: 1 }).where('id', '=', trashed.id).execute();
    expect(await page('page=1&per_page=2')).toEqual({ ids: ids.slice(0, 2), total: 5 }); // full: counted
    expect(await page('page=3&per_page=2')).toEqual({ ids: ids.slice(4), total: 5 }); // partial: told by the page
    expect(await page('page=4&per_page=2')).toEqual({ ids: [], total: 5 }); // past the end: counted
    expect(await page('page=1&per_page=5')).toEqual({ ids, total: 5 }); // exactly full: counted
    expect(await page('page=1&per_page=50&folder_id=root&sort_by=file_size:desc')).toEqual({ ids: [...ids].reverse(), total: 5 });
  });
});

/** SQLite rows are read as arrays and built by one generated function per statement (issue #18). */
describe('the SQLite statement cache', () => {
  it('answers rows as objects, a repeated column keeping its last value, and follows schema changes', () => {
    const cached = withStatementCache(new SQLite(':memory:'));
    const run = (sqlText: string, ...params: unknown[]) => cached.prepare(sqlText).all(params);
    cached.prepare('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)').run([]);
    cached.prepare('INSERT INTO t (name) VALUES (?)').run(['a']);
    expect(run('SELECT * FROM t')).toEqual([{ id: 1, name: 'a' }]);
    expect(run('SELECT id, name, 7 AS id FROM t WHERE name = ?', 'a')).toEqual([{ id: 7, name: 'a' }]);
    expect(run('SELECT * FROM t WHERE name = ?', 'b')).toEqual([]);
    cached.prepare('ALTER TABLE t ADD COLUMN size INTEGER DEFAULT 3').run([]);
    expect(run('SELECT * FROM t')).toEqual([{ id: 1, name: 'a', size: 3 }]);
    expect([...cached.prepare('SELECT name FROM t').iterate([])]).toEqual([{ name: 'a' }]);
    expect(cached.prepare('INSERT INTO t (name) VALUES (?) RETURNING id, name').all(['b'])).toEqual([{ id: 2, name: 'b' }]);
    cached.close();
  });
});
