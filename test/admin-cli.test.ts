import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../src/admin-cli.js';
import { buildApp } from '../src/app.js';
import type { AppConfig } from '../src/config.js';
import { openMigratedDatabase, type DatabaseHandle } from '../src/db/database.js';
import type { FastifyInstance } from 'fastify';
import { testConfig } from './helpers/app.js';
import { tempDir } from './helpers/databases.js';

/**
 * `npm run admin` (issue #27): an operator without SMTP makes a password link on the server, against the
 * database a running service uses; the link then works through the HTTP API like an e-mailed one.
 */
describe('npm run admin', () => {
  let config: AppConfig;
  let database: DatabaseHandle;
  let app: FastifyInstance;
  const email = 'locked-out@example.test';

  function run(args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    return runAdminCommand(args, { out: (l) => out.push(l), err: (l) => err.push(l) }, config).then((code) => ({ code, out, err }));
  }

  beforeAll(async () => {
    const dataDir = tempDir('dam-admin-cli-');
    config = testConfig({ dataDir, databaseUrl: `sqlite:${path.join(dataDir, 'dam.sqlite')}`, publicUrl: 'https://dam.example.test' });
    database = await openMigratedDatabase(config.databaseUrl);
    app = await buildApp(config, { database, logger: false });
    const res = await app.inject({ method: 'POST', url: '/auth/register', payload: { email, password: 'forgotten password', name: 'Locked Out' } });
    expect(res.statusCode).toBe(201);
    const second = await app.inject({ method: 'POST', url: '/auth/register', payload: { email: 'plain@example.test', password: 'plain password', name: 'Plain' } });
    expect(second.statusCode).toBe(201);
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it('reset-password prints a single-use link on DAM_PUBLIC_URL that sets the password', async () => {
    const { code, out } = await run(['reset-password', email.toUpperCase()]);
    expect(code).toBe(0);
    const url = out.find((l) => l.startsWith('https://dam.example.test/reset-password?token='));
    expect(url).toBeDefined();
    const token = new URL(url!).searchParams.get('token')!;

    const info = await app.inject({ method: 'GET', url: `/auth/password-reset?token=${token}` });
    expect(info.statusCode).toBe(200);
    expect(info.json<{ data: unknown }>().data).toMatchObject({ email, purpose: 'reset' });

    const confirm = await app.inject({ method: 'POST', url: '/auth/password-reset/confirm', payload: { token, password: 'a brand new password' } });
    expect(confirm.statusCode).toBe(200);
    const login = await app.inject({ method: 'POST', url: '/auth/login', payload: { email, password: 'a brand new password' } });
    expect(login.statusCode).toBe(200);
    const again = await app.inject({ method: 'POST', url: '/auth/password-reset/confirm', payload: { token, password: 'another new password' } });
    expect(again.statusCode).toBe(410);
    expect(again.json<{ code: string }>().code).toBe('LINK_INVALID');
  });

  it('make-admin makes an account an instance admin', async () => {
    const { code } = await run(['make-admin', 'plain@example.test']);
    expect(code).toBe(0);
    const login = await app.inject({ method: 'POST', url: '/auth/login', payload: { email: 'plain@example.test', password: 'plain password' } });
    const list = await app.inject({ method: 'GET', url: '/admin/users', headers: { authorization: `Bearer ${login.json<{ token: string }>().token}` } });
    expect(list.statusCode).toBe(200);
  });

  it('says what is wrong: an unknown e-mail exits 1, a wrong command 2', async () => {
    const unknown = await run(['reset-password', 'nobody@example.test']);
    expect(unknown.code).toBe(1);
    expect(unknown.err.join('\n')).toContain('No account with e-mail nobody@example.test');
    const usage = await run(['delete-everything', email]);
    expect(usage.code).toBe(2);
    expect(usage.err.join('\n')).toContain('usage: npm run admin');
    expect((await run([])).code).toBe(2);
  });
});
