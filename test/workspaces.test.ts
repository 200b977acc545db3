import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { dialects } from './helpers/databases.js';
import { addMember, registerUser, type Account, type Envelope } from './helpers/factories.js';

type Role = 'viewer' | 'manager' | 'admin';
interface Workspace {
  id: number;
  name: string;
  role: Role;
  created_at: number;
  modified_at: number;
}
interface Member {
  user_id: number;
  email: string;
  name: string;
  role: Role;
  created_at: number;
}
interface ErrorBody {
  error: string;
  code: string;
  field?: string;
}

const MISSING_ID = 987_654;

describe.each(dialects)('workspaces on %s', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ dialect });
  });
  afterAll(() => t.close());

  const get = <T>(url: string, token: string) => t.request({ method: 'GET', url, token }).then((r) => ({ status: r.statusCode, body: r.json<T>() }));

  async function createWorkspace(owner: Account, name = 'Shared'): Promise<number> {
    const res = await t.request({ method: 'POST', url: '/workspaces', token: owner.token, payload: { name } });
    expect(res.statusCode).toBe(201);
    return res.json<Envelope<Workspace>>().data.id;
  }

  async function membersOf(workspaceId: number, token: string): Promise<Member[]> {
    const res = await t.request({ method: 'GET', url: `/workspaces/${workspaceId}/members`, token });
    expect(res.statusCode).toBe(200);
    return res.json<Envelope<Member[]>>().data;
  }

  const setRole = (token: string, workspaceId: number, userId: number, role: Role) =>
    t.request({ method: 'PATCH', url: `/workspaces/${workspaceId}/members/${userId}`, token, payload: { role } });
  const removeMember = (token: string, workspaceId: number, userId: number) =>
    t.request({ method: 'DELETE', url: `/workspaces/${workspaceId}/members/${userId}`, token });

  describe('CRUD', () => {
    it('GET /workspaces lists the personal workspace with the role', async () => {
      const a = await registerUser(t);
      const res = await t.request({ method: 'GET', url: '/workspaces', token: a.token });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ success: true, data: [{ id: a.workspaceId, name: expect.any(String) as string, role: 'admin' }] });
    });

    it('POST /workspaces creates a workspace whose creator is admin', async () => {
      const a = await registerUser(t);
      const res = await t.request({ method: 'POST', url: '/workspaces', token: a.token, payload: { name: 'Brand assets' } });
      expect(res.statusCode).toBe(201);
      const body = res.json<Envelope<Workspace>>();
      expect(body).toEqual({
        success: true,
        data: {
          id: expect.any(Number) as number,
          name: 'Brand assets',
          role: 'admin',
          created_at: expect.any(Number) as number,
          modified_at: expect.any(Number) as number,
          share_max_expiry_days: 90,
        },
      });
      const id = body.data.id;
      expect(id).not.toBe(a.workspaceId);

      const list = await get<Envelope<{ id: number; name: string; role: Role }[]>>('/workspaces', a.token);
      expect(list.body.data).toEqual([
        { id: a.workspaceId, name: expect.any(String) as string, role: 'admin' },
        { id, name: 'Brand assets', role: 'admin' },
      ]);
      const me = await get<{ workspaces: unknown[] }>('/auth/me', a.token);
      expect(me.body.workspaces).toEqual(list.body.data);
      expect(await membersOf(id, a.token)).toEqual([
        { user_id: a.user.id, email: a.user.email, name: a.user.name, role: 'admin', created_at: expect.any(Number) as number },
      ]);
    });

    it('GET /workspaces/:id answers the workspace and the caller role', async () => {
      const a = await registerUser(t);
      const b = await registerUser(t);
      const id = await createWorkspace(a, 'Readable');
      await addMember(t, a, id, b, 'viewer');
      const asAdmin = await get<Envelope<Workspace>>(`/workspaces/${id}`, a.token);
      expect(asAdmin.status).toBe(200);
      expect(asAdmin.body.data).toMatchObject({ id, name: 'Readable', role: 'admin' });
      const asViewer = await get<Envelope<Workspace>>(`/workspaces/${id}`, b.token);
      expect(asViewer.status).toBe(200);
      expect(asViewer.body.data).toMatchObject({ id, name: 'Readable', role: 'viewer' });
    });

    it('PATCH /workspaces/:id renames it (admins) and moves modified_at', async () => {
      const a = await registerUser(t);
      const id = await createWorkspace(a, 'Old name');
      const before = (await get<Envelope<Workspace>>(`/workspaces/${id}`, a.token)).body.data;
      t.advanceClock(120);
      const res = await t.request({ method: 'PATCH', url: `/workspaces/${id}`, token: a.token, payload: { name: 'New name' } });
      expect(res.statusCode).toBe(200);
      const after = res.json<Envelope<Workspace>>().data;
      expect(after).toMatchObject({ id, name: 'New name', role: 'admin', created_at: before.created_at });
      expect(after.modified_at).toBeGreaterThanOrEqual(before.modified_at + 120);
      expect((await get<Envelope<Workspace>>(`/workspaces/${id}`, a.token)).body.data.name).toBe('New name');
    });

    it('DELETE /workspaces/:id deletes it for every member', async () => {
      const a = await registerUser(t);
      const b = await registerUser(t);
      const id = await createWorkspace(a, 'Doomed');
      await addMember(t, a, id, b, 'manager');

      const res = await t.request({ method: 'DELETE', url: `/workspaces/${id}`, token: a.token });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ success: true, data: { id } });

      for (const user of [a, b]) {
        const one = await get<ErrorBody>(`/workspaces/${id}`, user.token);
        expect(one.status).toBe(404);
        expect(one.body.code).toBe('NOT_FOUND');
        expect((await get<ErrorBody>(`/workspaces/${id}/members`, user.token)).status).toBe(404);
        const list = await get<Envelope<{ id: number }[]>>('/workspaces', user.token);
        expect(list.body.data.map((w) => w.id)).not.toContain(id);
      }
      // Deleting again: it no longer exists.
      expect((await t.request({ method: 'DELETE', url: `/workspaces/${id}`, token: a.token })).statusCode).toBe(404);
      // The personal workspace is untouched.
      expect((await get(`/workspaces/${a.workspaceId}`, a.token)).status).toBe(200);
    });

    it('a user may delete their personal workspace and create another', async () => {
      const a = await registerUser(t);
      expect((await t.request({ method: 'DELETE', url: `/workspaces/${a.workspaceId}`, token: a.token })).statusCode).toBe(200);
      expect((await get<Envelope<unknown[]>>('/workspaces', a.token)).body.data).toEqual([]);
      const id = await createWorkspace(a, 'Fresh start');
      expect((await get<Envelope<{ id: number }[]>>('/workspaces', a.token)).body.data.map((w) => w.id)).toEqual([id]);
    });
  });

  describe('validation (400 naming the field)', () => {
    let a: Account;
    beforeAll(async () => {
      a = await registerUser(t);
    });

    const cases: [string, () => { method: 'POST' | 'PATCH' | 'GET'; url: string; payload?: Record<string, unknown> }, string][] = [
      ['create without name', () => ({ method: 'POST', url: '/workspaces', payload: {} }), 'name'],
      ['create with empty name', () => ({ method: 'POST', url: '/workspaces', payload: { name: '' } }), 'name'],
      ['create with a number as name', () => ({ method: 'POST', url: '/workspaces', payload: { name: { x: 1 } } }), 'name'],
      ['create with a too long name', () => ({ method: 'POST', url: '/workspaces', payload: { name: 'x'.repeat(201) } }), 'name'],
      ['rename with empty name', () => ({ method: 'PATCH', url: `/workspaces/${a.workspaceId}`, payload: { name: '' } }), 'name'],
      ['non-numeric id', () => ({ method: 'GET', url: '/workspaces/abc' }), 'id'],
      ['zero id', () => ({ method: 'GET', url: '/workspaces/0' }), 'id'],
      ['add member without e-mail', () => ({ method: 'POST', url: `/workspaces/${a.workspaceId}/members`, payload: { role: 'viewer' } }), 'email'],
      ['add member with bad e-mail', () => ({ method: 'POST', url: `/workspaces/${a.workspaceId}/members`, payload: { email: 'nope', role: 'viewer' } }), 'email'],
      ['add member with unknown role', () => ({ method: 'POST', url: `/workspaces/${a.workspaceId}/members`, payload: { email: 'x@example.test', role: 'owner' } }), 'role'],
      ['change role to unknown role', () => ({ method: 'PATCH', url: `/workspaces/${a.workspaceId}/members/${a.user.id}`, payload: { role: 'superuser' } }), 'role'],
      ['change role with bad user id', () => ({ method: 'PATCH', url: `/workspaces/${a.workspaceId}/members/x`, payload: { role: 'viewer' } }), 'userId'],
    ];

    it.each(cases)('%s', async (_label, build, field) => {
      const res = await t.request({ ...build(), token: a.token });
      expect(res.statusCode).toBe(400);
      const body = res.json<ErrorBody>();
      // An absent field is MISSING_PARAMETER, a present but invalid one VALIDATION_ERROR; both name it.
      expect(['MISSING_PARAMETER', 'VALIDATION_ERROR']).toContain(body.code);
      expect(body.field).toBe(field);
      expect(body.error).toContain(field);
    });

    it('leaves the state unchanged after a refused rename', async () => {
      const before = (await get<Envelope<Workspace>>(`/workspaces/${a.workspaceId}`, a.token)).body.data.name;
      await t.request({ method: 'PATCH', url: `/workspaces/${a.workspaceId}`, token: a.token, payload: { name: '' } });
      expect((await get<Envelope<Workspace>>(`/workspaces/${a.workspaceId}`, a.token)).body.data.name).toBe(before);
    });
  });

  describe('members', () => {
    it('an admin adds an existing user by e-mail (case-insensitive) with a role', async () => {
      const a = await registerUser(t);
      const b = await registerUser(t);
      const res = await t.request({
        method: 'POST',
        url: `/workspaces/${a.workspaceId}/members`,
        token: a.token,
        payload: { email: b.user.email.toUpperCase(), role: 'manager' },
      });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toEqual({
        success: true,
        data: { user_id: b.user.id, email: b.user.email, name: b.user.name, role: 'manager', created_at: expect.any(Number) as number },
      });
      expect((await membersOf(a.workspaceId, a.token)).map((m) => [m.user_id, m.role])).toEqual([
        [a.user.id, 'admin'],
        [b.user.id, 'manager'],
      ]);
      // The new member sees the workspace with their role.
      const list = await get<Envelope<{ id: number; role: Role }[]>>('/workspaces', b.token);
      expect(list.body.data).toContainEqual({ id: a.workspaceId, name: expect.any(String) as string, role: 'manager' });
    });

    it('adding an unknown e-mail answers 404 naming the e-mail', async () => {
      const a = await registerUser(t);
      const email = `ghost-${Date.now()}@example.test`;
      const res = await t.request({ method: 'POST', url: `/workspaces/${a.workspaceId}/members`, token: a.token, payload: { email, role: 'viewer' } });
      expect(res.statusCode).toBe(404);
      const body = res.json<ErrorBody>();
      expect(body.code).toBe('NOT_FOUND');
      expect(body.error).toContain(email);
      expect(await membersOf(a.workspaceId, a.token)).toHaveLength(1);
    });

    it('adding someone who is already a member answers 409 and keeps their role', async () => {
      const a = await registerUser(t);
      const b = await registerUser(t);
      await addMember(t, a, a.workspaceId, b, 'viewer');
      const res = await t.request({ method: 'POST', url: `/workspaces/${a.workspaceId}/members`, token: a.token, payload: { email: b.user.email, role: 'admin' } });
      expect(res.statusCode).toBe(409);
      expect(res.json<ErrorBody>().code).toBe('CONFLICT');
      expect((await membersOf(a.workspaceId, a.token)).find((m) => m.user_id === b.user.id)?.role).toBe('viewer');
    });

    it('an admin changes a role; the promoted member gains admin rights', async () => {
      const a = await registerUser(t);
      const b = await registerUser(t);
      await addMember(t, a, a.workspaceId, b, 'viewer');
      expect((await t.request({ method: 'PATCH', url: `/workspaces/${a.workspaceId}`, token: b.token, payload: { name: 'x' } })).statusCode).toBe(403);

      const res = await setRole(a.token, a.workspaceId, b.user.id, 'admin');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ success: true, data: expect.objectContaining({ user_id: b.user.id, role: 'admin' }) as unknown });
      const rename = await t.request({ method: 'PATCH', url: `/workspaces/${a.workspaceId}`, token: b.token, payload: { name: 'Renamed by b' } });
      expect(rename.statusCode).toBe(200);
      expect(rename.json<Envelope<Workspace>>().data).toMatchObject({ name: 'Renamed by b', role: 'admin' });
    });

    it('changing the role of a non-member answers 404', async () => {
      const a = await registerUser(t);
      const b = await registerUser(t);
      const res = await setRole(a.token, a.workspaceId, b.user.id, 'viewer');
      expect(res.statusCode).toBe(404);
      expect(res.json<ErrorBody>().code).toBe('NOT_FOUND');
      expect((await removeMember(a.token, a.workspaceId, b.user.id)).statusCode).toBe(404);
    });

    it('an admin removes a member, who then loses access (404)', async () => {
      const a = await registerUser(t);
      const b = await registerUser(t);
      await addMember(t, a, a.workspaceId, b, 'manager');
      const res = await removeMember(a.token, a.workspaceId, b.user.id);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ success: true, data: { user_id: b.user.id } });
      expect((await membersOf(a.workspaceId, a.token)).map((m) => m.user_id)).toEqual([a.user.id]);
      expect((await get(`/workspaces/${a.workspaceId}`, b.token)).status).toBe(404);
      expect((await get<Envelope<{ id: number }[]>>('/workspaces', b.token)).body.data.map((w) => w.id)).toEqual([b.workspaceId]);
    });

    it('any member may leave (remove themselves)', async () => {
      const a = await registerUser(t);
      const b = await registerUser(t);
      await addMember(t, a, a.workspaceId, b, 'viewer');
      const res = await removeMember(b.token, a.workspaceId, b.user.id);
      expect(res.statusCode).toBe(200);
      expect((await get(`/workspaces/${a.workspaceId}`, b.token)).status).toBe(404);
    });

    describe('last admin (409 LAST_ADMIN)', () => {
      it('the only admin can be neither demoted nor removed', async () => {
        const a = await registerUser(t);
        const b = await registerUser(t);
        await addMember(t, a, a.workspaceId, b, 'manager');
        for (const role of ['manager', 'viewer'] as const) {
          const demote = await setRole(a.token, a.workspaceId, a.user.id, role);
          expect(demote.statusCode).toBe(409);
          expect(demote.json()).toEqual({ error: expect.any(String) as string, code: 'LAST_ADMIN' });
        }
        const leave = await removeMember(a.token, a.workspaceId, a.user.id);
        expect(leave.statusCode).toBe(409);
        expect(leave.json<ErrorBody>().code).toBe('LAST_ADMIN');
        // Re-affirming the admin role is fine.
        expect((await setRole(a.token, a.workspaceId, a.user.id, 'admin')).statusCode).toBe(200);
        expect((await membersOf(a.workspaceId, a.token)).filter((m) => m.role === 'admin').map((m) => m.user_id)).toEqual([a.user.id]);
      });

      it('with two admins one may be demoted or removed, then the other is the last', async () => {
        const a = await registerUser(t);
        const b = await registerUser(t);
        const c = await registerUser(t);
        await addMember(t, a, a.workspaceId, b, 'admin');
        await addMember(t, a, a.workspaceId, c, 'admin');

        expect((await setRole(b.token, a.workspaceId, a.user.id, 'viewer')).statusCode).toBe(200);
        expect((await removeMember(c.token, a.workspaceId, c.user.id)).statusCode).toBe(200);
        // b is now the only admin.
        expect((await setRole(b.token, a.workspaceId, b.user.id, 'manager')).json<ErrorBody>().code).toBe('LAST_ADMIN');
        expect((await removeMember(b.token, a.workspaceId, b.user.id)).json<ErrorBody>().code).toBe('LAST_ADMIN');
        expect((await membersOf(a.workspaceId, b.token)).map((m) => [m.user_id, m.role])).toEqual([
          [a.user.id, 'viewer'],
          [b.user.id, 'admin'],
        ]);
      });
    });
  });

  describe('roles (viewer < manager < admin)', () => {
    let owner: Account;
    let viewer: Account;
    let manager: Account;
    let bystander: Account;
    let id: number;
    beforeAll(async () => {
      owner = await registerUser(t);
      viewer = await registerUser(t);
      manager = await registerUser(t);
      bystander = await registerUser(t);
      id = await createWorkspace(owner, 'Roles');
      await addMember(t, owner, id, viewer, 'viewer');
      await addMember(t, owner, id, manager, 'manager');
      await addMember(t, owner, id, bystander, 'viewer');
    });

    it.each(['viewer', 'manager'] as const)('a %s may read the workspace and its members', async (who) => {
      const user = who === 'viewer' ? viewer : manager;
      expect((await get<Envelope<Workspace>>(`/workspaces/${id}`, user.token)).body.data.role).toBe(who);
      expect(await membersOf(id, user.token)).toHaveLength(4);
    });

    const adminActions: [string, (target: Account) => { method: 'PATCH' | 'DELETE' | 'POST'; url: string; payload?: Record<string, unknown> }][] = [
      ['rename the workspace', () => ({ method: 'PATCH', url: `/workspaces/${id}`, payload: { name: 'Hijacked' } })],
      ['delete the workspace', () => ({ method: 'DELETE', url: `/workspaces/${id}` })],
      ['add a member', (target) => ({ method: 'POST', url: `/workspaces/${id}/members`, payload: { email: target.user.email, role: 'admin' } })],
      ['change a role', (target) => ({ method: 'PATCH', url: `/workspaces/${id}/members/${target.user.id}`, payload: { role: 'admin' } })],
      ['promote themselves', () => ({ method: 'PATCH', url: `/workspaces/${id}/members/__self__`, payload: { role: 'admin' } })],
      ['remove another member', (target) => ({ method: 'DELETE', url: `/workspaces/${id}/members/${target.user.id}` })],
    ];

    describe.each(['viewer', 'manager'] as const)('a %s', (who) => {
      it.each(adminActions)('may not %s (403 FORBIDDEN)', async (_label, build) => {
        const user = who === 'viewer' ? viewer : manager;
        const target = _label === 'add a member' ? await registerUser(t) : bystander;
        const request = build(target);
        const res = await t.request({ ...request, url: request.url.replace('__self__', String(user.user.id)), token: user.token });
        expect(res.statusCode).toBe(403);
        expect(res.json()).toEqual({ error: expect.stringContaining('admin') as string, code: 'FORBIDDEN' });
      });
    });

    it('nothing changed after the refused actions', async () => {
      const ws = await get<Envelope<Workspace>>(`/workspaces/${id}`, owner.token);
      expect(ws.status).toBe(200);
      expect(ws.body.data.name).toBe('Roles');
      expect((await membersOf(id, owner.token)).map((m) => [m.user_id, m.role])).toEqual([
        [owner.user.id, 'admin'],
        [viewer.user.id, 'viewer'],
        [manager.user.id, 'manager'],
        [bystander.user.id, 'viewer'],
      ]);
    });
  });

  describe('cross-workspace isolation', () => {
    let owner: Account;
    let member: Account;
    let outsider: Account;
    let id: number;
    beforeAll(async () => {
      owner = await registerUser(t);
      member = await registerUser(t);
      outsider = await registerUser(t);
      id = await createWorkspace(owner, 'Private');
      await addMember(t, owner, id, member, 'viewer');
    });

    const routes: [string, (ws: number) => { method: 'GET' | 'PATCH' | 'DELETE' | 'POST'; url: string; payload?: Record<string, unknown> }][] = [
      ['GET /workspaces/:id', (ws) => ({ method: 'GET', url: `/workspaces/${ws}` })],
      ['PATCH /workspaces/:id', (ws) => ({ method: 'PATCH', url: `/workspaces/${ws}`, payload: { name: 'Mine now' } })],
      ['DELETE /workspaces/:id', (ws) => ({ method: 'DELETE', url: `/workspaces/${ws}` })],
      ['GET /workspaces/:id/members', (ws) => ({ method: 'GET', url: `/workspaces/${ws}/members` })],
      ['POST /workspaces/:id/members', (ws) => ({ method: 'POST', url: `/workspaces/${ws}/members`, payload: { email: outsider.user.email, role: 'admin' } })],
      ['PATCH /workspaces/:id/members/:userId (a member)', (ws) => ({ method: 'PATCH', url: `/workspaces/${ws}/members/${member.user.id}`, payload: { role: 'admin' } })],
      ['PATCH /workspaces/:id/members/:userId (themselves)', (ws) => ({ method: 'PATCH', url: `/workspaces/${ws}/members/${outsider.user.id}`, payload: { role: 'admin' } })],
      ['DELETE /workspaces/:id/members/:userId (a member)', (ws) => ({ method: 'DELETE', url: `/workspaces/${ws}/members/${member.user.id}` })],
      ['DELETE /workspaces/:id/members/:userId (themselves)', (ws) => ({ method: 'DELETE', url: `/workspaces/${ws}/members/${outsider.user.id}` })],
    ];

    it.each(routes)('a non-member gets 404 on %s, with the body of a non-existent id', async (_label, build) => {
      const res = await t.request({ ...build(id), token: outsider.token });
      const missing = await t.request({ ...build(MISSING_ID), token: outsider.token });
      expect(res.statusCode).toBe(404);
      expect(missing.statusCode).toBe(404);
      expect(res.json<ErrorBody>().code).toBe('NOT_FOUND');
      expect(res.body).toBe(missing.body);
      expect(res.body).not.toContain(String(id));
    });

    it('the workspace is untouched and the outsider does not see it', async () => {
      const ws = await get<Envelope<Workspace>>(`/workspaces/${id}`, owner.token);
      expect(ws.status).toBe(200);
      expect(ws.body.data.name).toBe('Private');
      expect((await membersOf(id, owner.token)).map((m) => [m.user_id, m.role])).toEqual([
        [owner.user.id, 'admin'],
        [member.user.id, 'viewer'],
      ]);
      const list = await get<Envelope<{ id: number }[]>>('/workspaces', outsider.token);
      expect(list.body.data.map((w) => w.id)).toEqual([outsider.workspaceId]);
    });

    it("an admin of another workspace has no rights here (membership is per workspace)", async () => {
      // The outsider is admin of their own workspace; that must not leak into this one.
      const res = await t.request({ method: 'PATCH', url: `/workspaces/${id}`, token: outsider.token, payload: { name: 'x' } });
      expect(res.statusCode).toBe(404);
      // And the owner of this one has no rights in the outsider's.
      expect((await get(`/workspaces/${outsider.workspaceId}`, owner.token)).status).toBe(404);
    });

    it('an unknown id answers 404 to anyone', async () => {
      const res = await get<ErrorBody>(`/workspaces/${MISSING_ID}`, owner.token);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: expect.any(String) as string, code: 'NOT_FOUND' });
    });

    it('every workspace route needs a token', async () => {
      for (const [, build] of routes) {
        const res = await t.request(build(id));
        expect(res.statusCode).toBe(401);
      }
      expect((await t.request({ method: 'GET', url: '/workspaces' })).statusCode).toBe(401);
      expect((await t.request({ method: 'POST', url: '/workspaces', payload: { name: 'x' } })).statusCode).toBe(401);
    });
  });

  describe('concurrency', () => {
    it.each([1, 2, 3, 4, 5])('two simultaneous self-demotions of the two admins leave exactly one admin (round %i)', async () => {
      const a = await registerUser(t);
      const b = await registerUser(t);
      const id = await createWorkspace(a, 'Race');
      await addMember(t, a, id, b, 'admin');

      const results = await Promise.all([setRole(a.token, id, a.user.id, 'viewer'), setRole(b.token, id, b.user.id, 'viewer')]);
      expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
      expect(results.find((r) => r.statusCode === 409)!.json<ErrorBody>().code).toBe('LAST_ADMIN');
      const admins = (await membersOf(id, a.token)).filter((m) => m.role === 'admin');
      expect(admins).toHaveLength(1);
    });

    it('two admins demoting each other simultaneously leave exactly one admin', async () => {
      const a = await registerUser(t);
      const b = await registerUser(t);
      const id = await createWorkspace(a, 'Mutual');
      await addMember(t, a, id, b, 'admin');

      const results = await Promise.all([setRole(a.token, id, b.user.id, 'manager'), setRole(b.token, id, a.user.id, 'manager')]);
      // The loser is refused either as the last admin (409) or, if the winner committed before its
      // role check, because it is no longer admin (403); never both succeed.
      const statuses = results.map((r) => r.statusCode).sort();
      expect(statuses[0]).toBe(200);
      expect([403, 409]).toContain(statuses[1]);
      expect((await membersOf(id, a.token)).filter((m) => m.role === 'admin')).toHaveLength(1);
    });

    it('two admins leaving simultaneously leave exactly one admin', async () => {
      const a = await registerUser(t);
      const b = await registerUser(t);
      const id = await createWorkspace(a, 'Exodus');
      await addMember(t, a, id, b, 'admin');

      const results = await Promise.all([removeMember(a.token, id, a.user.id), removeMember(b.token, id, b.user.id)]);
      expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
      const stayed = results[0].statusCode === 409 ? a : b;
      const members = await membersOf(id, stayed.token);
      expect(members.map((m) => [m.user_id, m.role])).toEqual([[stayed.user.id, 'admin']]);
    });
  });
});

describe.each(dialects)('workspaces one account may create on %s (issue #28)', (dialect) => {
  let t: TestApp;
  let admin: Account;
  beforeAll(async () => {
    t = await startTestApp({ dialect, config: { maxWorkspacesPerUser: 3 } });
    admin = await registerUser(t); // the first account: instance admin
  });
  afterAll(() => t.close());

  const create = (who: Account, name: string) => t.request({ method: 'POST', url: '/workspaces', token: who.token, payload: { name } });

  it('counts the workspaces an account created, the personal one included, and refuses past the limit with 403', async () => {
    const user = await registerUser(t);
    expect((await create(user, 'Second')).statusCode).toBe(201);
    const third = await create(user, 'Third');
    expect(third.statusCode).toBe(201);
    const refused = await create(user, 'Fourth');
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'WORKSPACE_LIMIT_REACHED', limit: 3, error: expect.stringContaining('DAM_MAX_WORKSPACES_PER_USER 3') as string });
    expect((await t.request({ method: 'GET', url: '/workspaces', token: user.token })).json<Envelope<unknown[]>>().data).toHaveLength(3);
    // Simultaneous attempts do not slip past the count either.
    expect((await t.request({ method: 'DELETE', url: `/workspaces/${third.json<Envelope<Workspace>>().data.id}`, token: user.token })).statusCode).toBe(200);
    const racing = await Promise.all([1, 2, 3, 4].map((i) => create(user, `Race ${i}`)));
    expect(racing.map((r) => r.statusCode).sort()).toEqual([201, 403, 403, 403]);
  });

  it('does not count workspaces the account was only invited into, and does not limit instance admins', async () => {
    const owner = await registerUser(t);
    const member = await registerUser(t);
    for (const name of ['A', 'B']) {
      const res = await create(owner, name);
      expect(res.statusCode).toBe(201);
      await addMember(t, owner, res.json<Envelope<Workspace>>().data.id, member, 'admin');
    }
    expect((await create(member, 'Mine')).statusCode).toBe(201);
    for (let i = 0; i < 4; i++) expect((await create(admin, `Admin ${i}`)).statusCode).toBe(201);
  });
});
