import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { makeAsset } from './helpers/catalog-factories.js';
import { dialects } from './helpers/databases.js';
import { addMember, registerUser, type Account } from './helpers/factories.js';
import {
  accountOf,
  dataOf,
  expectError,
  login,
  me,
  PASSWORD,
  setRegistration,
  tokenOf,
  uniqueEmail,
  workspacesOf,
  type AdminUser,
  type AuthBody,
} from './helpers/teams.js';

/** docs/features/teams.md "Instance administration" and "Registration modes" through the HTTP API. */

const PUBLIC_URL = 'https://dam.example.test';
const DAY = 86_400;

interface UserPage {
  items: AdminUser[];
  page: number;
  per_page: number;
  total: number;
}
interface Created {
  user: AdminUser;
  url: string | null;
  emailed: boolean;
}
interface Options {
  registration: string;
  registration_domains: string[];
  password_reset: boolean;
}

const register = (t: TestApp, email: string, name = 'Self Registered') => t.request({ method: 'POST', url: '/auth/register', payload: { email, password: PASSWORD, name } });
const options = async (t: TestApp) => dataOf<Options>(await t.request({ method: 'GET', url: '/auth/options' }));

describe.each(dialects)('instance administration on %s', (dialect) => {
  let t: TestApp;
  /** The first account: the instance admin. */
  let root: Account;
  let regular: Account;

  beforeAll(async () => {
    t = await startTestApp({ dialect, config: { publicUrl: PUBLIC_URL, sessionTtl: 365 * DAY } });
    root = await registerUser(t, { name: 'Root Admin' });
    regular = await registerUser(t, { name: 'Regular Person' });
  });
  afterAll(() => t.close());

  const admin = {
    list: (who: Account, query = '') => t.request({ method: 'GET', url: `/admin/users${query}`, token: who.token }),
    create: (who: Account, payload: Record<string, unknown>) => t.request({ method: 'POST', url: '/admin/users', token: who.token, payload }),
    update: (who: Account, id: number, payload: Record<string, unknown>) => t.request({ method: 'PATCH', url: `/admin/users/${id}`, token: who.token, payload }),
    passwordLink: (who: Account, id: number) => t.request({ method: 'POST', url: `/admin/users/${id}/password-link`, token: who.token }),
    remove: (who: Account, id: number, transferTo?: number) =>
      t.request({ method: 'DELETE', url: `/admin/users/${id}${transferTo === undefined ? '' : `?transfer_to=${transferTo}`}`, token: who.token }),
  };
  const userView = async (id: number): Promise<AdminUser> => {
    const page = dataOf<UserPage>(await admin.list(root, `?per_page=100&q=${encodeURIComponent((await emailOf(id)) ?? '')}`));
    const found = page.items.find((u) => u.id === id);
    if (!found) throw new Error(`user ${id} not listed`);
    return found;
  };
  const emailOf = async (id: number) => (await t.database.db.selectFrom('users').select('email').where('id', '=', id).executeTakeFirst())?.email;
  const linkInfo = (token: string) => t.request({ method: 'GET', url: `/auth/password-reset?token=${token}` });
  const confirm = (token: string, password: string) => t.request({ method: 'POST', url: '/auth/password-reset/confirm', payload: { token, password } });
  const newUser = (name?: string) => registerUser(t, { ...(name ? { name } : {}) });

  it('refuses every /admin route to anyone but an instance admin (403 ADMIN_ONLY), and to no token (401)', async () => {
    const calls = (token?: string) => [
      t.request({ method: 'GET', url: '/admin/users', token }),
      t.request({ method: 'POST', url: '/admin/users', token, payload: { email: uniqueEmail('sneaky'), name: 'Sneaky', password: PASSWORD } }),
      t.request({ method: 'PATCH', url: `/admin/users/${regular.user.id}`, token, payload: { is_instance_admin: true } }),
      t.request({ method: 'POST', url: `/admin/users/${root.user.id}/password-link`, token }),
      t.request({ method: 'DELETE', url: `/admin/users/${root.user.id}`, token }),
      t.request({ method: 'GET', url: '/admin/settings', token }),
      t.request({ method: 'PATCH', url: '/admin/settings', token, payload: { registration_mode: 'open' } }),
    ];
    for (const res of await Promise.all(calls(regular.token))) expectError(res, 403, 'ADMIN_ONLY');
    for (const res of await Promise.all(calls())) expectError(res, 401, 'UNAUTHORIZED');
    // Nothing changed: the regular user is still no admin, the root still exists with its password.
    expect((await me(t, regular.token)).json<{ user: { is_instance_admin: boolean } }>().user.is_instance_admin).toBe(false);
    expect((await login(t, root.user.email, root.password)).statusCode).toBe(200);
    // The control: the instance admin gets through.
    expect((await admin.list(root)).statusCode).toBe(200);
  });

  describe('GET /admin/users', () => {
    it('lists accounts by e-mail with their workspaces; q matches e-mail or name; pages', async () => {
      const tag = randomBytes(3).toString('hex');
      // Registered in an order other than the e-mail order.
      const carol = await registerUser(t, { email: `c-${tag}@example.test`, name: 'Carol Finder' });
      const alice = await registerUser(t, { email: `a-${tag}@example.test`, name: 'Alice Finder' });
      const bob = await registerUser(t, { email: `b-${tag}@example.test`, name: `Bob ${tag.toUpperCase()}` });
      await addMember(t, carol, carol.workspaceId, alice, 'viewer');
      // A login sets last_login_at.
      expect((await login(t, alice.user.email, alice.password)).statusCode).toBe(200);

      const all = dataOf<UserPage>(await admin.list(root, `?q=${tag}`));
      expect(all).toEqual({ items: expect.any(Array) as unknown[], page: 1, per_page: 50, total: 3 });
      expect(all.items.map((u) => u.id)).toEqual([alice.user.id, bob.user.id, carol.user.id]);
      const a = all.items[0]!;
      expect(a).toEqual({
        id: alice.user.id,
        email: alice.user.email,
        name: 'Alice Finder',
        is_instance_admin: false,
        disabled: false,
        created_at: expect.any(Number) as number,
        last_login_at: expect.any(Number) as number,
        must_change_password: false,
        has_password: true,
        workspaces: [
          { id: carol.workspaceId, name: "Carol Finder's workspace", role: 'viewer' },
          { id: alice.workspaceId, name: "Alice Finder's workspace", role: 'admin' },
        ].sort((x, y) => x.id - y.id),
        storage_bytes: 0,
      });
      expect(a.last_login_at).toBeGreaterThanOrEqual(a.created_at);

      // q matches a part of the name, whatever the case, or of the e-mail.
      const byName = dataOf<UserPage>(await admin.list(root, `?q=${encodeURIComponent(`bob ${tag}`)}`));
      expect(byName.items.map((u) => u.id)).toEqual([bob.user.id]);
      expect(byName.total).toBe(1);
      const byEmail = dataOf<UserPage>(await admin.list(root, `?q=${encodeURIComponent(`C-${tag}@EXAMPLE`)}`));
      expect(byEmail.items.map((u) => u.id)).toEqual([carol.user.id]);
      expect(dataOf<UserPage>(await admin.list(root, `?q=nobody-${tag}`))).toEqual({ items: [], page: 1, per_page: 50, total: 0 });

      // Pages of two.
      const first = dataOf<UserPage>(await admin.list(root, `?q=${tag}&per_page=2&page=1`));
      const second = dataOf<UserPage>(await admin.list(root, `?q=${tag}&per_page=2&page=2`));
      expect(first).toMatchObject({ page: 1, per_page: 2, total: 3 });
      expect(first.items.map((u) => u.id)).toEqual([alice.user.id, bob.user.id]);
      expect(second).toMatchObject({ page: 2, per_page: 2, total: 3 });
      expect(second.items.map((u) => u.id)).toEqual([carol.user.id]);

      // Without q: everyone, the first user flagged as instance admin.
      const everyone = dataOf<UserPage>(await admin.list(root, '?per_page=100'));
      expect(everyone.total).toBeGreaterThanOrEqual(5);
      const emails = everyone.items.map((u) => u.email);
      expect(emails).toEqual([...emails].sort());
      expect(everyone.items.find((u) => u.id === root.user.id)).toMatchObject({ is_instance_admin: true, email: root.user.email });
    });

    it('takes q literally: _ and % are no wildcards', async () => {
      const tag = randomBytes(3).toString('hex');
      const under = await registerUser(t, { email: `under_score-${tag}@example.test`, name: 'Under Score' });
      await registerUser(t, { email: `underXscore-${tag}@example.test`, name: 'Under X' });
      const found = dataOf<UserPage>(await admin.list(root, `?q=${encodeURIComponent(`under_score-${tag}`)}`));
      expect(found.items.map((u) => u.id)).toEqual([under.user.id]);
      expect(dataOf<UserPage>(await admin.list(root, `?q=${encodeURIComponent(`%${tag}`)}`)).total).toBe(0);
    });

    it('storage_bytes sums the stored bytes of the workspaces the user administers', async () => {
      const owner = await newUser('Storage Owner');
      const member = await newUser('Storage Member');
      await addMember(t, owner, owner.workspaceId, member, 'manager');
      const team = dataOf<{ id: number }>(await t.request({ method: 'POST', url: '/workspaces', token: owner.token, payload: { name: 'Stored team' } }), 201);
      // The counters are the storage accounting's (issue #17); set here as it would have kept them.
      const store = (workspaceId: number, bytes: number) =>
        t.database.db.updateTable('workspace_usage').set({ storage_bytes: bytes }).where('workspace_id', '=', workspaceId).execute();
      await store(owner.workspaceId, 4321);
      await store(team.id, 1000);
      await store(member.workspaceId, 7);
      expect((await userView(owner.user.id)).storage_bytes).toBe(5321);
      // A manager of the owner's workspace does not administer it: only their own workspace counts.
      expect((await userView(member.user.id)).storage_bytes).toBe(7);
    });
  });

  describe('POST /admin/users', () => {
    it('with a temporary password: sign-in works, every route but a few answers 403 PASSWORD_CHANGE_REQUIRED until it is changed', async () => {
      const email = uniqueEmail('temp');
      const temporary = 'temporary password 1';
      const res = await admin.create(root, { email: email.toUpperCase(), name: 'Tempo Rary', password: temporary });
      const created = dataOf<Created>(res, 201);
      expect(created).toEqual({
        user: {
          id: expect.any(Number) as number,
          email,
          name: 'Tempo Rary',
          is_instance_admin: false,
          disabled: false,
          created_at: expect.any(Number) as number,
          last_login_at: null,
          must_change_password: true,
          has_password: true,
          workspaces: [{ id: expect.any(Number) as number, name: "Tempo Rary's workspace", role: 'admin' }],
          storage_bytes: 0,
        },
        url: null,
        emailed: false,
      });

      const signIn = await login(t, email, temporary);
      expect(signIn.statusCode).toBe(200);
      const session = signIn.json<AuthBody>();
      expect(session.workspaces).toEqual(created.user.workspaces);
      const who = await me(t, session.token);
      expect(who.statusCode).toBe(200);
      expect(who.json<{ user: Record<string, unknown> }>().user).toMatchObject({ id: created.user.id, must_change_password: true, has_password: true });

      for (const [method, url] of [
        ['GET', '/workspaces'],
        ['GET', `/workspaces/${created.user.workspaces[0]!.id}`],
        ['GET', '/auth/sessions'],
        ['POST', '/auth/sessions/end-others'],
        ['GET', `/dam/assets?workspaceId=${created.user.workspaces[0]!.id}`],
      ] as const) {
        expectError(await t.request({ method, url, token: session.token }), 403, 'PASSWORD_CHANGE_REQUIRED');
      }
      // GET /auth/options answers (public).
      expect((await t.request({ method: 'GET', url: '/auth/options', token: session.token })).statusCode).toBe(200);

      const changed = await t.request({ method: 'POST', url: '/auth/password', token: session.token, payload: { current_password: temporary, new_password: 'my own password' } });
      expect(dataOf<unknown>(changed)).toEqual({ changed: true, ended_sessions: 0 });
      expect((await me(t, session.token)).json<{ user: { must_change_password: boolean } }>().user.must_change_password).toBe(false);
      expect((await t.request({ method: 'GET', url: '/workspaces', token: session.token })).statusCode).toBe(200);
      expect((await userView(created.user.id)).must_change_password).toBe(false);
      expect((await login(t, email, 'my own password')).statusCode).toBe(200);
      expect((await login(t, email, temporary)).statusCode).toBe(401);
    });

    it('logout is allowed before the temporary password is changed', async () => {
      const email = uniqueEmail('temp-out');
      dataOf<Created>(await admin.create(root, { email, name: 'Tempo Out', password: 'temporary password 2' }), 201);
      const token = (await login(t, email, 'temporary password 2')).json<AuthBody>().token;
      expect((await t.request({ method: 'POST', url: '/auth/logout', token })).statusCode).toBe(200);
      expectError(await me(t, token), 401, 'INVALID_TOKEN');
    });

    it('without a password: a setup link (purpose setup, valid DAM_INVITE_TTL) that sets the password once and signs in', async () => {
      const email = uniqueEmail('setup');
      const created = dataOf<Created>(await admin.create(root, { email, name: 'Set Up' }), 201);
      expect(created.user).toMatchObject({ email, has_password: false, must_change_password: false, disabled: false });
      expect(created.emailed).toBe(false);
      expect(created.url).toMatch(new RegExp(`^${PUBLIC_URL}/reset-password\\?token=[A-Za-z0-9_-]{43}$`));
      const token = tokenOf(created.url!);
      // No password yet: nothing signs in.
      expect((await login(t, email, PASSWORD)).statusCode).toBe(401);

      const info = dataOf<{ email: string; purpose: string; expires_at: number }>(await linkInfo(token));
      expect(info).toEqual({ email, purpose: 'setup', expires_at: expect.any(Number) as number });
      expect(info.expires_at - created.user.created_at).toBeGreaterThanOrEqual(t.config.inviteTtl);
      expect(info.expires_at - created.user.created_at).toBeLessThanOrEqual(t.config.inviteTtl + 5);

      const res = await confirm(token, 'chosen password');
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json<AuthBody>();
      expect(body.user).toEqual({ id: created.user.id, email, name: 'Set Up' });
      expect(body.workspaces).toEqual(created.user.workspaces);
      expect((await me(t, body.token)).statusCode).toBe(200);
      expect((await t.request({ method: 'GET', url: '/workspaces', token: body.token })).statusCode).toBe(200);
      expect((await login(t, email, 'chosen password')).statusCode).toBe(200);
      // Used up.
      expectError(await linkInfo(token), 410, 'LINK_INVALID');
      expectError(await confirm(token, 'another password'), 410, 'LINK_INVALID');
      expect((await login(t, email, 'another password')).statusCode).toBe(401);
    });

    it('a setup link expires after DAM_INVITE_TTL', async () => {
      const created = dataOf<Created>(await admin.create(root, { email: uniqueEmail('late'), name: 'Too Late' }), 201);
      const token = tokenOf(created.url!);
      t.advanceClock(t.config.inviteTtl - 60);
      try {
        expect((await linkInfo(token)).statusCode).toBe(200);
        t.advanceClock(61);
        expectError(await linkInfo(token), 410, 'LINK_INVALID');
        expectError(await confirm(token, 'chosen password'), 410, 'LINK_INVALID');
      } finally {
        t.advanceClock(-(t.config.inviteTtl + 1));
      }
    });

    it('answers 409 EMAIL_TAKEN for an e-mail with an account (any case), and 400 naming a bad field', async () => {
      expectError(await admin.create(root, { email: regular.user.email.toUpperCase(), name: 'Dup', password: PASSWORD }), 409, 'EMAIL_TAKEN');
      expectError(await admin.create(root, { email: 'nope', name: 'Bad' }), 400, 'VALIDATION_ERROR', 'email');
      expectError(await admin.create(root, { email: uniqueEmail(), name: 'Short', password: 'short' }), 400, 'VALIDATION_ERROR', 'password');
    });
  });

  describe('PATCH /admin/users/:userId', () => {
    it("disabling ends the user's sessions at once and refuses their sign-in; enabling lets them sign in again", async () => {
      const user = await newUser('Dis Abled');
      const second = (await login(t, user.user.email, user.password)).json<AuthBody>().token;
      expect((await me(t, user.token)).statusCode).toBe(200);

      const res = await admin.update(root, user.user.id, { disabled: true });
      expect(dataOf<AdminUser>(res)).toMatchObject({ id: user.user.id, disabled: true, is_instance_admin: false });
      for (const token of [user.token, second]) {
        expectError(await me(t, token), 401, 'INVALID_TOKEN');
        expectError(await t.request({ method: 'GET', url: '/workspaces', token }), 401, 'INVALID_TOKEN');
      }
      expectError(await login(t, user.user.email, user.password), 403, 'ACCOUNT_DISABLED');
      // Only after the right password: a wrong one is the usual 401.
      expectError(await login(t, user.user.email, 'wrong password'), 401, 'INVALID_CREDENTIALS');
      expect((await userView(user.user.id)).disabled).toBe(true);

      expect(dataOf<AdminUser>(await admin.update(root, user.user.id, { disabled: false })).disabled).toBe(false);
      const again = await login(t, user.user.email, user.password);
      expect(again.statusCode).toBe(200);
      expect((await me(t, again.json<AuthBody>().token)).statusCode).toBe(200);
      // The sessions ended by the disabling stay ended.
      expectError(await me(t, user.token), 401, 'INVALID_TOKEN');
    });

    it('renames a user', async () => {
      const user = await newUser('Old Name');
      expect(dataOf<AdminUser>(await admin.update(root, user.user.id, { name: 'New Name' }))).toMatchObject({ id: user.user.id, name: 'New Name' });
      expect((await me(t, user.token)).json<{ user: { name: string } }>().user.name).toBe('New Name');
      expect((await admin.update(root, user.user.id, { name: '' })).statusCode).toBe(400);
      expect((await admin.update(root, user.user.id, { email: 'x@example.test' })).statusCode).toBe(400);
      expectError(await admin.update(root, 999_999, { name: 'Ghost' }), 404, 'NOT_FOUND');
    });

    it('an admin can neither disable nor demote themselves, nor delete their own account (409)', async () => {
      expectError(await admin.update(root, root.user.id, { disabled: true }), 409, 'CONFLICT');
      expectError(await admin.update(root, root.user.id, { is_instance_admin: false }), 409, 'CONFLICT');
      expectError(await admin.remove(root, root.user.id), 409, 'CONFLICT');
      const self = await userView(root.user.id);
      expect(self).toMatchObject({ is_instance_admin: true, disabled: false });
      expect((await me(t, root.token)).statusCode).toBe(200);
    });

    it('promoting lets the user use /admin; demoting takes it away', async () => {
      const user = await newUser('Pro Moted');
      expectError(await admin.list(user), 403, 'ADMIN_ONLY');
      expect(dataOf<AdminUser>(await admin.update(root, user.user.id, { is_instance_admin: true })).is_instance_admin).toBe(true);
      // The same session: the next request already has the right.
      expect((await admin.list(user)).statusCode).toBe(200);
      expect((await me(t, user.token)).json<{ user: { is_instance_admin: boolean } }>().user.is_instance_admin).toBe(true);
      // A promoted admin may administer others, the first admin included.
      expect(dataOf<AdminUser>(await admin.update(user, root.user.id, { name: 'Root Admin' })).name).toBe('Root Admin');

      expect(dataOf<AdminUser>(await admin.update(root, user.user.id, { is_instance_admin: false })).is_instance_admin).toBe(false);
      expectError(await admin.list(user), 403, 'ADMIN_ONLY');
    });

    it('the last enabled instance admin stays one: of two admins removing each other at once, one is refused', async () => {
      // A fresh instance whose only admins are the two racing.
      const app = await startTestApp({ dialect });
      try {
        let survivor = await registerUser(app, { name: 'First' });
        const seen: string[] = [];
        for (let round = 0; round < 6; round += 1) {
          const other = await registerUser(app, { name: `Other ${round}` });
          const promote = await app.request({ method: 'PATCH', url: `/admin/users/${other.user.id}`, token: survivor.token, payload: { is_instance_admin: true } });
          expect(promote.statusCode).toBe(200);
          const how = round % 2 === 0 ? { is_instance_admin: false } : { disabled: true };
          const pair = [survivor, other];
          const results = await Promise.all([
            app.request({ method: 'PATCH', url: `/admin/users/${other.user.id}`, token: survivor.token, payload: how }),
            app.request({ method: 'PATCH', url: `/admin/users/${survivor.user.id}`, token: other.token, payload: how }),
          ]);
          expect(results.map((r) => r.statusCode).filter((s) => s === 200), results.map((r) => r.body).join('\n')).toHaveLength(1);
          const refused = results.find((r) => r.statusCode !== 200)!;
          const outcome = `${refused.statusCode} ${refused.json<{ code: string }>().code}`;
          seen.push(outcome);
          // Either it met the last admin under the lock, or its caller was no admin (or no session) any more when authenticated.
          expect(['409 LAST_INSTANCE_ADMIN', '403 ADMIN_ONLY', '401 INVALID_TOKEN']).toContain(outcome);
          const admins = await app.database.db.selectFrom('users').select('id').where('is_instance_admin', '=', 1).where('disabled_at', 'is', null).execute();
          expect(admins).toHaveLength(1);
          survivor = pair[results.findIndex((r) => r.statusCode === 200)]!;
          expect(admins[0]!.id).toBe(survivor.user.id);
        }
        // The requests overlap: the refusal under the lock is what happens.
        expect(seen).toContain('409 LAST_INSTANCE_ADMIN');
      } finally {
        await app.close();
      }
    });
  });

  describe('DELETE /admin/users/:userId', () => {
    it('refuses (409 naming them) when the user alone administers a workspace with other members and no transfer_to', async () => {
      const leaving = await newUser('Lea Ving');
      const member = await newUser('Mem Ber');
      const team = dataOf<{ id: number; name: string }>(await t.request({ method: 'POST', url: '/workspaces', token: leaving.token, payload: { name: `Team ${randomBytes(2).toString('hex')}` } }), 201);
      await addMember(t, leaving, team.id, member, 'viewer');

      const res = expectError(await admin.remove(root, leaving.user.id), 409, 'CONFLICT');
      expect(res.error).toContain(team.name);
      expect(res.error).toContain(String(team.id));
      expect(res.error).not.toContain(`(${leaving.workspaceId})`);
      // Nothing was deleted.
      expect((await me(t, leaving.token)).statusCode).toBe(200);
      expect((await workspacesOf(t, leaving.token)).map((w) => w.id).sort((x, y) => x - y)).toEqual([leaving.workspaceId, team.id].sort((x, y) => x - y));
    });

    it('with transfer_to: the heir becomes admin of every workspace the user alone administered, with its assets', async () => {
      const leaving = await newUser('Lea Ving Two');
      const heir = await newUser('Heir Apparent');
      const coAdmin = await newUser('Co Admin');
      const team = dataOf<{ id: number }>(await t.request({ method: 'POST', url: '/workspaces', token: leaving.token, payload: { name: 'Team with assets' } }), 201);
      const shared = dataOf<{ id: number }>(await t.request({ method: 'POST', url: '/workspaces', token: leaving.token, payload: { name: 'Shared admin' } }), 201);
      await addMember(t, leaving, team.id, heir, 'viewer');
      await addMember(t, leaving, shared.id, coAdmin, 'admin');
      const asset = await makeAsset(t.database.db, team.id, { file_name: 'kept.jpg', display_file_name: 'kept.jpg' });

      const res = await admin.remove(root, leaving.user.id, heir.user.id);
      const data = dataOf<{ id: number; transferred_workspaces: number[]; deleted_workspaces: number[] }>(res);
      // The personal workspace and the team go to the heir; the workspace with another admin is left to that admin.
      expect(data).toEqual({ id: leaving.user.id, transferred_workspaces: [leaving.workspaceId, team.id].sort((x, y) => x - y), deleted_workspaces: [] });

      const heirs = await workspacesOf(t, heir.token);
      expect(heirs).toContainEqual({ id: team.id, name: 'Team with assets', role: 'admin' });
      expect(heirs).toContainEqual(expect.objectContaining({ id: leaving.workspaceId, role: 'admin' }));
      const list = await t.request({ method: 'GET', url: `/dam/assets?workspaceId=${team.id}`, token: heir.token });
      expect(list.statusCode, list.body).toBe(200);
      expect(JSON.stringify(list.json())).toContain(`"id":${asset.id}`);
      const sharedMembers = dataOf<{ user_id: number; role: string }[]>(await t.request({ method: 'GET', url: `/workspaces/${shared.id}/members`, token: coAdmin.token }));
      expect(sharedMembers).toEqual([expect.objectContaining({ user_id: coAdmin.user.id, role: 'admin' })]);

      // The account is gone: its token and its password are refused, it is no longer listed.
      expectError(await me(t, leaving.token), 401, 'INVALID_TOKEN');
      expectError(await login(t, leaving.user.email, leaving.password), 401, 'INVALID_CREDENTIALS');
      expect(dataOf<UserPage>(await admin.list(root, `?q=${encodeURIComponent(leaving.user.email)}`)).total).toBe(0);
      expectError(await admin.remove(root, leaving.user.id), 404, 'NOT_FOUND');
    });

    it('without transfer_to: a workspace of which the user was the only member is deleted', async () => {
      const leaving = await newUser('Solo Member');
      await makeAsset(t.database.db, leaving.workspaceId);
      const res = await admin.remove(root, leaving.user.id);
      expect(dataOf<unknown>(res)).toEqual({ id: leaving.user.id, transferred_workspaces: [], deleted_workspaces: [leaving.workspaceId] });
      const row = await t.database.db.selectFrom('workspaces').select('id').where('id', '=', leaving.workspaceId).executeTakeFirst();
      expect(row).toBeUndefined();
      expectError(await login(t, leaving.user.email, leaving.password), 401, 'INVALID_CREDENTIALS');
    });

    it('refuses a transfer_to that is the user, or no enabled user (400)', async () => {
      const leaving = await newUser();
      expectError(await admin.remove(root, leaving.user.id, leaving.user.id), 400, 'VALIDATION_ERROR', 'transfer_to');
      expectError(await admin.remove(root, leaving.user.id, 999_999), 400, 'VALIDATION_ERROR', 'transfer_to');
      const disabled = await newUser();
      expect((await admin.update(root, disabled.user.id, { disabled: true })).statusCode).toBe(200);
      expectError(await admin.remove(root, leaving.user.id, disabled.user.id), 400, 'VALIDATION_ERROR', 'transfer_to');
      expect((await me(t, leaving.token)).statusCode).toBe(200);
    });
  });

  describe('POST /admin/users/:userId/password-link', () => {
    it("makes a working link and retires the user's older links; using it ends the user's sessions", async () => {
      const user = await newUser('Lost Password');
      const first = dataOf<{ url: string; emailed: boolean }>(await admin.passwordLink(root, user.user.id));
      expect(first).toEqual({ url: expect.stringMatching(new RegExp(`^${PUBLIC_URL}/reset-password\\?token=[A-Za-z0-9_-]{43}$`)) as string, emailed: false });
      const second = dataOf<{ url: string; emailed: boolean }>(await admin.passwordLink(root, user.user.id));
      const [old, fresh] = [tokenOf(first.url), tokenOf(second.url)];
      expect(fresh).not.toBe(old);

      expectError(await linkInfo(old), 410, 'LINK_INVALID');
      expectError(await confirm(old, 'new password one'), 410, 'LINK_INVALID');
      expect(dataOf<{ email: string; purpose: string }>(await linkInfo(fresh))).toMatchObject({ email: user.user.email, purpose: 'setup' });

      const res = await confirm(fresh, 'new password two');
      expect(res.statusCode, res.body).toBe(200);
      const signedIn = accountOf(res.json<AuthBody>(), 'new password two');
      expect(signedIn.user.id).toBe(user.user.id);
      expectError(await me(t, user.token), 401, 'INVALID_TOKEN');
      expect((await me(t, signedIn.token)).statusCode).toBe(200);
      expect((await login(t, user.user.email, 'new password two')).statusCode).toBe(200);
      expect((await login(t, user.user.email, user.password)).statusCode).toBe(401);
      expectError(await confirm(fresh, 'new password three'), 410, 'LINK_INVALID');
      expectError(await admin.passwordLink(root, 999_999), 404, 'NOT_FOUND');
    });

    it('of simultaneous uses of one link exactly one succeeds', async () => {
      const user = await newUser();
      const link = tokenOf(dataOf<{ url: string }>(await admin.passwordLink(root, user.user.id)).url);
      const results = await Promise.all([1, 2, 3].map((i) => confirm(link, `racing password ${i}`)));
      expect(results.map((r) => r.statusCode).sort()).toEqual([200, 410, 410]);
      const winner = results.findIndex((r) => r.statusCode === 200) + 1;
      expect((await login(t, user.user.email, `racing password ${winner}`)).statusCode).toBe(200);
    });

    it('a link also replaces a temporary password, ending must_change_password', async () => {
      const email = uniqueEmail('temp-link');
      const created = dataOf<Created>(await admin.create(root, { email, name: 'Temp Link', password: 'temporary password 3' }), 201);
      const link = tokenOf(dataOf<{ url: string }>(await admin.passwordLink(root, created.user.id)).url);
      const res = await confirm(link, 'chosen for good');
      expect(res.statusCode, res.body).toBe(200);
      const token = res.json<AuthBody>().token;
      expect((await me(t, token)).json<{ user: { must_change_password: boolean } }>().user.must_change_password).toBe(false);
      expect((await t.request({ method: 'GET', url: '/workspaces', token })).statusCode).toBe(200);
      expectError(await login(t, email, 'temporary password 3'), 401, 'INVALID_CREDENTIALS');
    });

    it("a disabled user's link opens nothing", async () => {
      const user = await newUser();
      const link = tokenOf(dataOf<{ url: string }>(await admin.passwordLink(root, user.user.id)).url);
      expect((await admin.update(root, user.user.id, { disabled: true })).statusCode).toBe(200);
      expectError(await linkInfo(link), 410, 'LINK_INVALID');
      expectError(await confirm(link, 'new password'), 410, 'LINK_INVALID');
      expectError(await login(t, user.user.email, 'new password'), 401, 'INVALID_CREDENTIALS');
    });
  });
});

describe.each(dialects)('registration modes on %s', (dialect) => {
  it('defaults to invite without DAM_ALLOW_REGISTRATION; the first user may always register', async () => {
    const t = await startTestApp({ dialect, config: { allowRegistration: false, publicUrl: PUBLIC_URL } });
    try {
      expect(await options(t)).toEqual({ registration: 'invite', registration_domains: [], password_reset: false });
      const first = await register(t, uniqueEmail('first'), 'First');
      expect(first.statusCode).toBe(201);
      const root = accountOf(first.json<AuthBody>());
      expect((await me(t, root.token)).json<{ user: { is_instance_admin: boolean } }>().user.is_instance_admin).toBe(true);

      const refused = expectError(await register(t, uniqueEmail('second')), 403, 'REGISTRATION_CLOSED');
      expect(refused.error).toMatch(/invitation/);
      expect(dataOf<unknown>(await t.request({ method: 'GET', url: '/admin/settings', token: root.token }))).toEqual({
        registration_mode: 'invite',
        registration_domains: [],
        smtp: false,
        public_url: PUBLIC_URL,
      });
    } finally {
      await t.close();
    }
  });

  it('defaults to open with DAM_ALLOW_REGISTRATION=true', async () => {
    const t = await startTestApp({ dialect, config: { allowRegistration: true } });
    try {
      expect((await options(t)).registration).toBe('open');
      await registerUser(t);
      expect((await register(t, uniqueEmail('second'))).statusCode).toBe(201);
    } finally {
      await t.close();
    }
  });

  it('follows PATCH /admin/settings: open, domains, closed; GET /auth/options tells', async () => {
    const t = await startTestApp({ dialect, config: { allowRegistration: false } });
    try {
      const root = await registerUser(t);

      expect(await setRegistration(t, root, 'open')).toMatchObject({ registration_mode: 'open', registration_domains: [] });
      expect((await options(t)).registration).toBe('open');
      expect((await register(t, uniqueEmail('open'))).statusCode).toBe(201);

      // domains: needs at least one.
      const none = await t.request({ method: 'PATCH', url: '/admin/settings', token: root.token, payload: { registration_mode: 'domains' } });
      expectError(none, 400, 'VALIDATION_ERROR', 'registration_domains');
      const empty = await t.request({ method: 'PATCH', url: '/admin/settings', token: root.token, payload: { registration_mode: 'domains', registration_domains: [] } });
      expectError(empty, 400, 'VALIDATION_ERROR', 'registration_domains');
      expect((await options(t)).registration).toBe('open');
      for (const bad of ['not a domain', '@example.com', 'example', 'https://example.com']) {
        const res = await t.request({ method: 'PATCH', url: '/admin/settings', token: root.token, payload: { registration_mode: 'domains', registration_domains: [bad] } });
        expect(res.statusCode, bad).toBe(400);
      }
      expect((await t.request({ method: 'PATCH', url: '/admin/settings', token: root.token, payload: { registration_mode: 'anyone' } })).statusCode).toBe(400);

      const settings = await setRegistration(t, root, 'domains', ['Example.COM', 'team.example.org', 'example.com']);
      expect(settings).toMatchObject({ registration_mode: 'domains', registration_domains: ['example.com', 'team.example.org'] });
      expect(await options(t)).toEqual({ registration: 'domains', registration_domains: ['example.com', 'team.example.org'], password_reset: false });
      expect((await register(t, uniqueEmail('in', 'example.com'))).statusCode).toBe(201);
      expect((await register(t, uniqueEmail('IN', 'EXAMPLE.COM'))).statusCode).toBe(201);
      expect((await register(t, uniqueEmail('team', 'team.example.org'))).statusCode).toBe(201);
      for (const domain of ['other.test', 'sub.example.com', 'example.com.evil.test']) {
        const refused = expectError(await register(t, uniqueEmail('out', domain)), 403, 'REGISTRATION_CLOSED');
        expect(refused.error).toMatch(/domain/);
      }
      // Changing the mode alone keeps the domains.
      expect(await setRegistration(t, root, 'invite')).toMatchObject({ registration_mode: 'invite', registration_domains: ['example.com', 'team.example.org'] });
      expectError(await register(t, uniqueEmail('in', 'example.com')), 403, 'REGISTRATION_CLOSED');

      await setRegistration(t, root, 'closed');
      expect((await options(t)).registration).toBe('closed');
      const closedEmail = uniqueEmail('closed');
      const closed = expectError(await register(t, closedEmail), 403, 'REGISTRATION_CLOSED');
      expect(closed.error).toMatch(/administrator/);
      // Instance admins still create accounts.
      const made = await t.request({ method: 'POST', url: '/admin/users', token: root.token, payload: { email: closedEmail, name: 'Made', password: 'temporary password' } });
      expect(made.statusCode, made.body).toBe(201);
      expect((await login(t, closedEmail, 'temporary password')).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('the setting is kept in the database: another process on it reads the same mode', async () => {
    const t = await startTestApp({ dialect, config: { allowRegistration: true } });
    try {
      const root = await registerUser(t);
      await setRegistration(t, root, 'closed');
      const { buildApp } = await import('../src/app.js');
      const { testConfig } = await import('./helpers/app.js');
      const other = await buildApp(testConfig({ allowRegistration: true, dataDir: t.config.dataDir }), { database: t.database, logger: false });
      try {
        const res = await other.inject({ method: 'GET', url: '/auth/options' });
        expect(res.json<{ data: Options }>().data.registration).toBe('closed');
        expect((await other.inject({ method: 'POST', url: '/auth/register', payload: { email: uniqueEmail('x'), password: PASSWORD, name: 'X' } })).statusCode).toBe(403);
      } finally {
        await other.close();
      }
    } finally {
      await t.close();
    }
  });
});
