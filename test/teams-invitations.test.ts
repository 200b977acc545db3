import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePlans } from '../src/payments/plans.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { dialects } from './helpers/databases.js';
import { addMember, registerUser, type Account } from './helpers/factories.js';
import { startFakeGoogle, type FakeAccount, type FakeGoogle } from './helpers/fake-google.js';
import { startFakeStripe, type FakeStripe } from './helpers/fake-stripe.js';
import {
  accept,
  accountOf,
  dataOf,
  expectError,
  invite,
  inviteNew,
  join,
  listInvitations,
  login,
  me,
  PASSWORD,
  preview,
  setRegistration,
  tokenOf,
  uniqueEmail,
  workspacesOf,
  type AuthBody,
  type Invitation,
  type InviteResult,
} from './helpers/teams.js';

/**
 * docs/features/teams.md "Invitations" through the HTTP API: a workspace admin invites by e-mail and role; the
 * invitee previews, accepts (new account) or joins (signed in); links are single-use, expiring, revocable.
 */

const PUBLIC_URL = 'https://dam.example.test';
const DAY = 86_400;
const now = () => Math.floor(Date.now() / 1000);

interface Preview {
  email: string;
  role: string;
  workspace: { id: number; name: string };
  invited_by: string | null;
  expires_at: number;
  account_exists: boolean;
}

describe.each(dialects)('invitations on %s', (dialect) => {
  let t: TestApp;
  /** The first account: instance admin. */
  let root: Account;
  /** A workspace admin (of their personal workspace) who is not an instance admin. */
  let owner: Account;
  let manager: Account;
  let viewer: Account;
  let outsider: Account;
  const logs: string[] = [];
  /** Every invitation token the API handed out in this suite: none may reach a log line. */
  const tokens: string[] = [];

  const newInvitation = async (who: Account, workspaceId: number, email = uniqueEmail('inv'), role: 'viewer' | 'manager' | 'admin' = 'viewer') => {
    const made = await inviteNew(t, who, workspaceId, email, role);
    tokens.push(made.token);
    return made;
  };
  const invitationsOf = async (who: Account, workspaceId: number, status?: 'pending' | 'all') =>
    dataOf<Invitation[]>(await listInvitations(t, who, workspaceId, status));

  beforeAll(async () => {
    t = await startTestApp({
      dialect,
      // Sessions outlive the clock moves below (an invitation lives 7 days).
      config: { publicUrl: PUBLIC_URL, logLevel: 'info', sessionTtl: 365 * DAY },
      logStream: { write: (line) => void logs.push(line) },
    });
    root = await registerUser(t, { name: 'Root Admin' });
    owner = await registerUser(t, { name: 'Olivia Owner' });
    manager = await registerUser(t, { name: 'Manny Manager' });
    viewer = await registerUser(t, { name: 'Vera Viewer' });
    outsider = await registerUser(t, { name: 'Oscar Outsider' });
    await addMember(t, owner, owner.workspaceId, manager, 'manager');
    await addMember(t, owner, owner.workspaceId, viewer, 'viewer');
  });
  afterAll(() => t.close());

  describe('POST /workspaces/:id/invitations', () => {
    it('invites an e-mail without an account: an invitation and its link, stored as a SHA-256 only', async () => {
      const email = uniqueEmail('New.Person');
      const before = now();
      const res = await invite(t, owner, owner.workspaceId, email.toUpperCase(), 'manager');
      const data = dataOf<InviteResult>(res, 201);
      expect(data).toEqual({ added: false, member: null, invitation: expect.any(Object) as object, url: expect.any(String) as string, emailed: false });
      const inv = data.invitation!;
      expect(inv).toEqual({
        id: expect.any(Number) as number,
        workspace_id: owner.workspaceId,
        email: email.toLowerCase(),
        role: 'manager',
        status: 'pending',
        invited_by: { id: owner.user.id, name: 'Olivia Owner' },
        created_at: expect.any(Number) as number,
        expires_at: inv.created_at + 7 * DAY,
        accepted_at: null,
        last_sent_at: inv.created_at,
      });
      expect(inv.created_at).toBeGreaterThanOrEqual(before);
      expect(inv.created_at).toBeLessThanOrEqual(now());
      expect(data.url).toMatch(new RegExp(`^${PUBLIC_URL}/invite/[A-Za-z0-9_-]{43}$`));
      const token = tokenOf(data.url!);
      tokens.push(token);

      // The database keeps the SHA-256 of the token, never the token.
      const row = await t.database.db.selectFrom('invitations').selectAll().where('id', '=', inv.id).executeTakeFirstOrThrow();
      expect(row.token_hash).toBe(createHash('sha256').update(token).digest('hex'));
      expect(JSON.stringify(row)).not.toContain(token);

      // The admins' list has it, newest first.
      const second = await newInvitation(owner, owner.workspaceId);
      const list = await invitationsOf(owner, owner.workspaceId);
      expect(list.slice(0, 2).map((i) => i.id)).toEqual([second.invitation.id, inv.id]);
      expect(list.find((i) => i.id === inv.id)).toEqual(inv);
    });

    it('GET /invitations/:token previews it for anyone holding the link', async () => {
      const email = uniqueEmail('preview');
      const { token, invitation } = await newInvitation(owner, owner.workspaceId, email, 'manager');
      const res = await preview(t, token);
      expect(dataOf<Preview>(res)).toEqual({
        email,
        role: 'manager',
        workspace: { id: owner.workspaceId, name: "Olivia Owner's workspace" },
        invited_by: 'Olivia Owner',
        expires_at: invitation.expires_at,
        account_exists: false,
      });
      // An unknown but well-formed token: 410; a malformed one is refused before any lookup.
      expectError(await preview(t, randomBytes(32).toString('base64url')), 410, 'LINK_INVALID');
      expect((await preview(t, 'not-a-token')).statusCode).toBe(400);
    });

    it('adds an e-mail that has an account at once (added: true), as the old "add member" did', async () => {
      const existing = await registerUser(t, { name: 'Ezra Existing' });
      const res = await invite(t, owner, owner.workspaceId, existing.user.email.toUpperCase(), 'manager');
      const data = dataOf<InviteResult>(res, 201);
      expect(data).toEqual({
        added: true,
        member: { user_id: existing.user.id, email: existing.user.email, name: 'Ezra Existing', role: 'manager', created_at: expect.any(Number) as number },
        invitation: null,
        url: null,
        emailed: false,
      });
      expect(await workspacesOf(t, existing.token)).toContainEqual({ id: owner.workspaceId, name: "Olivia Owner's workspace", role: 'manager' });
      // No invitation was made.
      expect((await invitationsOf(owner, owner.workspaceId, 'all')).some((i) => i.email === existing.user.email)).toBe(false);
    });

    it('answers 409 CONFLICT for a member, and for an e-mail with a pending invitation (any case)', async () => {
      const already = expectError(await invite(t, owner, owner.workspaceId, manager.user.email, 'viewer'), 409, 'CONFLICT');
      expect(already.error).toContain(manager.user.email);
      // The member keeps their role.
      expect(await workspacesOf(t, manager.token)).toContainEqual(expect.objectContaining({ id: owner.workspaceId, role: 'manager' }));

      const email = uniqueEmail('dup');
      const first = await newInvitation(owner, owner.workspaceId, email);
      const dup = expectError(await invite(t, owner, owner.workspaceId, email.toUpperCase(), 'admin'), 409, 'CONFLICT');
      expect(dup.field).toBe('email');
      expect(dup.error).toMatch(/pending/);
      const pending = (await invitationsOf(owner, owner.workspaceId)).filter((i) => i.email === email);
      expect(pending).toEqual([first.invitation]);
      // Another workspace may invite the same e-mail.
      await newInvitation(outsider, outsider.workspaceId, email);
    });

    it('answers 400 naming the field for a bad e-mail or role', async () => {
      expectError(await invite(t, owner, owner.workspaceId, 'not-an-email', 'viewer'), 400, 'VALIDATION_ERROR', 'email');
      const badRole = await t.request({ method: 'POST', url: `/workspaces/${owner.workspaceId}/invitations`, token: owner.token, payload: { email: uniqueEmail(), role: 'owner' } });
      expect(badRole.statusCode).toBe(400);
      expect(badRole.json<{ field?: string }>().field).toBe('role');
    });
  });

  describe('who may manage invitations', () => {
    it('refuses managers and viewers (403) and hides the workspace from non-members (404)', async () => {
      const { invitation } = await newInvitation(owner, owner.workspaceId);
      const ws = owner.workspaceId;
      const calls = (who: Account) => [
        invite(t, who, ws, uniqueEmail('nope'), 'viewer'),
        listInvitations(t, who, ws),
        listInvitations(t, who, ws, 'all'),
        t.request({ method: 'POST', url: `/workspaces/${ws}/invitations/${invitation.id}/resend`, token: who.token }),
        t.request({ method: 'DELETE', url: `/workspaces/${ws}/invitations/${invitation.id}`, token: who.token }),
      ];
      for (const who of [manager, viewer]) {
        for (const res of await Promise.all(calls(who))) expectError(res, 403, 'FORBIDDEN');
      }
      for (const res of await Promise.all(calls(outsider))) expectError(res, 404, 'NOT_FOUND');
      // An instance admin who is not a member of the workspace is no exception.
      for (const res of await Promise.all(calls(root))) expectError(res, 404, 'NOT_FOUND');
      // Without a token: 401.
      const anonymous = await t.request({ method: 'GET', url: `/workspaces/${ws}/invitations` });
      expectError(anonymous, 401, 'UNAUTHORIZED');

      // Nothing changed: the invitation is still pending with its first link.
      const after = (await invitationsOf(owner, ws)).find((i) => i.id === invitation.id);
      expect(after).toEqual(invitation);
      // An admin of the workspace who was invited as admin may manage them.
      const coAdmin = await registerUser(t);
      await addMember(t, owner, ws, coAdmin, 'admin');
      expect((await invitationsOf(coAdmin, ws)).map((i) => i.id)).toContain(invitation.id);
    });

    it('an invitation of another workspace cannot be resent or revoked through this one (404)', async () => {
      const { invitation } = await newInvitation(outsider, outsider.workspaceId);
      expectError(await t.request({ method: 'DELETE', url: `/workspaces/${owner.workspaceId}/invitations/${invitation.id}`, token: owner.token }), 404, 'NOT_FOUND');
      expectError(await t.request({ method: 'POST', url: `/workspaces/${owner.workspaceId}/invitations/${invitation.id}/resend`, token: owner.token }), 404, 'NOT_FOUND');
      expect((await invitationsOf(outsider, outsider.workspaceId)).find((i) => i.id === invitation.id)?.status).toBe('pending');
    });
  });

  describe('POST /invitations/:token/accept', () => {
    it('creates the account, joins with the role and signs in; a viewer cannot upload or create folders', async () => {
      const email = uniqueEmail('accepting');
      const { token, invitation } = await newInvitation(owner, owner.workspaceId, email.toUpperCase(), 'viewer');
      const res = await accept(t, token, { name: 'Ava Accepted', password: PASSWORD });
      expect(res.statusCode, res.body).toBe(201);
      const body = res.json<AuthBody>();
      expect(Object.keys(body).sort()).toEqual(['token', 'user', 'workspaces']);
      expect(body.user).toEqual({ id: expect.any(Number) as number, email, name: 'Ava Accepted' });
      // The workspace of the invitation with its role, and a personal workspace as every account has.
      expect(body.workspaces).toEqual(
        expect.arrayContaining([
          { id: owner.workspaceId, name: "Olivia Owner's workspace", role: 'viewer' },
          { id: expect.any(Number) as number, name: "Ava Accepted's workspace", role: 'admin' },
        ]),
      );
      expect(body.workspaces).toHaveLength(2);

      // Signed in: the token works; the account is a regular one with a password.
      const who = await me(t, body.token);
      expect(who.statusCode).toBe(200);
      expect(who.json<{ user: Record<string, unknown> }>().user).toMatchObject({ id: body.user.id, email, is_instance_admin: false, must_change_password: false, has_password: true });
      expect((await login(t, email, PASSWORD)).statusCode).toBe(200);

      // The role is the invitation's: a viewer reads but cannot create folders or upload.
      const invitee = accountOf(body);
      expect((await t.request({ method: 'GET', url: `/workspaces/${owner.workspaceId}`, token: invitee.token })).statusCode).toBe(200);
      const folder = await t.request({ method: 'POST', url: '/dam/folders', token: invitee.token, payload: { workspace_id: owner.workspaceId, name: 'Not allowed' } });
      expectError(folder, 403, 'FORBIDDEN');
      const upload = await t.request({ method: 'GET', url: `/storage/start-upload?workspaceId=${owner.workspaceId}&fileType=image%2Fpng`, token: invitee.token });
      expectError(upload, 403, 'FORBIDDEN');
      // ...while in their own workspace they can.
      const own = await t.request({ method: 'POST', url: '/dam/folders', token: invitee.token, payload: { workspace_id: invitee.workspaceId, name: 'Mine' } });
      expect(own.statusCode, own.body).toBe(201);

      // The invitation is accepted: out of the pending list, in the full one.
      expect((await invitationsOf(owner, owner.workspaceId)).map((i) => i.id)).not.toContain(invitation.id);
      const accepted = (await invitationsOf(owner, owner.workspaceId, 'all')).find((i) => i.id === invitation.id);
      expect(accepted).toMatchObject({ status: 'accepted', email });
      expect(accepted?.accepted_at).toEqual(expect.any(Number));
      const members = dataOf<{ user_id: number; role: string }[]>(await t.request({ method: 'GET', url: `/workspaces/${owner.workspaceId}/members`, token: owner.token }));
      expect(members).toContainEqual(expect.objectContaining({ user_id: body.user.id, role: 'viewer' }));
    });

    it('a manager invitation lets the invitee create folders', async () => {
      const { token } = await newInvitation(owner, owner.workspaceId, uniqueEmail('mgr'), 'manager');
      const body = (await accept(t, token)).json<AuthBody>();
      const folder = await t.request({ method: 'POST', url: '/dam/folders', token: body.token, payload: { workspace_id: owner.workspaceId, name: `Team folder ${randomBytes(2).toString('hex')}` } });
      expect(folder.statusCode, folder.body).toBe(201);
    });

    it('is single-use: a second accept, a join and a preview of a used link answer 410', async () => {
      const email = uniqueEmail('once');
      const { token } = await newInvitation(owner, owner.workspaceId, email);
      const first = await accept(t, token, { name: 'Once', password: PASSWORD });
      expect(first.statusCode).toBe(201);
      expectError(await accept(t, token, { name: 'Twice', password: 'another password' }), 410, 'LINK_INVALID');
      expectError(await preview(t, token), 410, 'LINK_INVALID');
      expectError(await join(t, first.json<AuthBody>().token, token), 410, 'LINK_INVALID');
      // The second attempt changed nothing: the first password still signs in.
      expect((await login(t, email, PASSWORD)).statusCode).toBe(200);
      expect((await login(t, email, 'another password')).statusCode).toBe(401);
    });

    it('of simultaneous accepts of one link exactly one succeeds', async () => {
      const { token } = await newInvitation(owner, owner.workspaceId);
      const results = await Promise.all([1, 2, 3, 4].map((i) => accept(t, token, { name: `Racer ${i}`, password: PASSWORD })));
      expect(results.map((r) => r.statusCode).sort()).toEqual([201, 410, 410, 410]);
    });

    it('answers 409 EMAIL_TAKEN when an account with the e-mail exists since the invitation was made', async () => {
      const email = uniqueEmail('later');
      const { token } = await newInvitation(owner, owner.workspaceId, email, 'manager');
      const registered = await registerUser(t, { email, password: 'the real password' });
      expect(dataOf<Preview>(await preview(t, token)).account_exists).toBe(true);
      const res = expectError(await accept(t, token, { name: 'Impostor', password: PASSWORD }), 409, 'EMAIL_TAKEN');
      expect(res.error).toMatch(/sign in/i);
      // The account is untouched and the invitation still pending (the owner of the e-mail can join).
      expect((await login(t, email, 'the real password')).statusCode).toBe(200);
      expect((await login(t, email, PASSWORD)).statusCode).toBe(401);
      expect(dataOf<Preview>(await preview(t, token)).email).toBe(email);
      expect((await workspacesOf(t, registered.token)).map((w) => w.id)).not.toContain(owner.workspaceId);
    });

    it('answers 400 naming the field for a short password or a missing name, and uses nothing up', async () => {
      const { token } = await newInvitation(owner, owner.workspaceId);
      expectError(await accept(t, token, { name: 'Short', password: 'short' }), 400, 'VALIDATION_ERROR', 'password');
      const noName = await accept(t, token, { password: PASSWORD });
      expect(noName.statusCode).toBe(400);
      expect(noName.json<{ field?: string }>().field).toBe('name');
      expect((await preview(t, token)).statusCode).toBe(200);
    });
  });

  describe('POST /invitations/:token/join', () => {
    it("joins the signed-in account of the invitation's e-mail; another e-mail gets 403 INVITATION_EMAIL_MISMATCH", async () => {
      const email = uniqueEmail('joiner');
      const { token, invitation } = await newInvitation(owner, owner.workspaceId, email, 'manager');
      const joiner = await registerUser(t, { email: email.toUpperCase(), name: 'Jo Joiner' });

      const mismatch = expectError(await join(t, outsider, token), 403, 'INVITATION_EMAIL_MISMATCH');
      expect(mismatch.error).toContain(email);
      expect((await workspacesOf(t, outsider.token)).map((w) => w.id)).not.toContain(owner.workspaceId);
      expectError(await t.request({ method: 'POST', url: `/invitations/${token}/join` }), 401, 'UNAUTHORIZED');

      const res = await join(t, joiner, token);
      expect(dataOf<unknown>(res)).toEqual({ id: owner.workspaceId, name: "Olivia Owner's workspace", role: 'manager' });
      expect(await workspacesOf(t, joiner.token)).toContainEqual({ id: owner.workspaceId, name: "Olivia Owner's workspace", role: 'manager' });
      expect((await invitationsOf(owner, owner.workspaceId, 'all')).find((i) => i.id === invitation.id)?.status).toBe('accepted');
      // Used up.
      expectError(await join(t, joiner, token), 410, 'LINK_INVALID');
    });
  });

  describe('expiry, revocation and resending', () => {
    it('a link works until DAM_INVITE_TTL has passed, then answers 410 and the invitation is listed expired', async () => {
      const { token, invitation } = await newInvitation(owner, owner.workspaceId);
      const ttl = t.config.inviteTtl;
      expect(ttl).toBe(7 * DAY);
      t.advanceClock(ttl - 60);
      try {
        expect((await preview(t, token)).statusCode).toBe(200);
        t.advanceClock(60);
        expectError(await preview(t, token), 410, 'LINK_INVALID');
        expectError(await accept(t, token), 410, 'LINK_INVALID');
        expect((await invitationsOf(owner, owner.workspaceId)).map((i) => i.id)).not.toContain(invitation.id);
        expect((await invitationsOf(owner, owner.workspaceId, 'all')).find((i) => i.id === invitation.id)?.status).toBe('expired');
        // An expired invitation does not block a new one to the same e-mail.
        const again = await newInvitation(owner, owner.workspaceId, invitation.email);
        expect(again.invitation.id).not.toBe(invitation.id);
      } finally {
        t.advanceClock(-ttl);
      }
    });

    it('an expired invitation can be resent: a new link with a new expiry', async () => {
      const { token, invitation } = await newInvitation(owner, owner.workspaceId);
      t.advanceClock(t.config.inviteTtl + 10);
      try {
        expectError(await preview(t, token), 410, 'LINK_INVALID');
        const res = await t.request({ method: 'POST', url: `/workspaces/${owner.workspaceId}/invitations/${invitation.id}/resend`, token: owner.token });
        const data = dataOf<{ invitation: Invitation; url: string; emailed: boolean }>(res);
        const fresh = tokenOf(data.url);
        tokens.push(fresh);
        expect(data.invitation.status).toBe('pending');
        expect(data.invitation.expires_at).toBe(data.invitation.last_sent_at + t.config.inviteTtl);
        expect(data.invitation.last_sent_at).toBeGreaterThanOrEqual(invitation.created_at + t.config.inviteTtl + 10);
        expect((await accept(t, fresh)).statusCode).toBe(201);
      } finally {
        t.advanceClock(-(t.config.inviteTtl + 10));
      }
    });

    it('revoking makes the link answer 410, keeps the invitation listed as revoked, and allows inviting again', async () => {
      const { token, invitation } = await newInvitation(owner, owner.workspaceId);
      const res = await t.request({ method: 'DELETE', url: `/workspaces/${owner.workspaceId}/invitations/${invitation.id}`, token: owner.token });
      expect(dataOf<unknown>(res)).toEqual({ id: invitation.id });
      expectError(await preview(t, token), 410, 'LINK_INVALID');
      expectError(await accept(t, token), 410, 'LINK_INVALID');
      expect((await invitationsOf(owner, owner.workspaceId)).map((i) => i.id)).not.toContain(invitation.id);
      expect((await invitationsOf(owner, owner.workspaceId, 'all')).find((i) => i.id === invitation.id)?.status).toBe('revoked');
      // A revoked invitation is final: it is not resent.
      const resend = await t.request({ method: 'POST', url: `/workspaces/${owner.workspaceId}/invitations/${invitation.id}/resend`, token: owner.token });
      expectError(resend, 409, 'CONFLICT');
      expectError(await preview(t, token), 410, 'LINK_INVALID');
      // The e-mail may be invited again.
      await newInvitation(owner, owner.workspaceId, invitation.email);
      // Unknown invitation: 404.
      expectError(await t.request({ method: 'DELETE', url: `/workspaces/${owner.workspaceId}/invitations/999999`, token: owner.token }), 404, 'NOT_FOUND');
    });

    it('an accepted invitation can be neither revoked nor resent (409)', async () => {
      const { token, invitation } = await newInvitation(owner, owner.workspaceId);
      expect((await accept(t, token)).statusCode).toBe(201);
      expectError(await t.request({ method: 'DELETE', url: `/workspaces/${owner.workspaceId}/invitations/${invitation.id}`, token: owner.token }), 409, 'CONFLICT');
      expectError(await t.request({ method: 'POST', url: `/workspaces/${owner.workspaceId}/invitations/${invitation.id}/resend`, token: owner.token }), 409, 'CONFLICT');
      expect((await invitationsOf(owner, owner.workspaceId, 'all')).find((i) => i.id === invitation.id)?.status).toBe('accepted');
    });

    it('resending makes a new link with a new expiry; the old link answers 410', async () => {
      const { token: old, invitation } = await newInvitation(owner, owner.workspaceId, uniqueEmail('resend'), 'manager');
      t.advanceClock(3600);
      try {
        const res = await t.request({ method: 'POST', url: `/workspaces/${owner.workspaceId}/invitations/${invitation.id}/resend`, token: owner.token });
        const data = dataOf<{ invitation: Invitation; url: string; emailed: boolean }>(res);
        expect(data.emailed).toBe(false);
        expect(data.url).toMatch(new RegExp(`^${PUBLIC_URL}/invite/[A-Za-z0-9_-]{43}$`));
        const fresh = tokenOf(data.url);
        tokens.push(fresh);
        expect(fresh).not.toBe(old);
        expect(data.invitation).toEqual({
          ...invitation,
          last_sent_at: expect.any(Number) as number,
          expires_at: expect.any(Number) as number,
        });
        expect(data.invitation.last_sent_at).toBeGreaterThanOrEqual(invitation.last_sent_at + 3600);
        expect(data.invitation.expires_at).toBe(data.invitation.last_sent_at + t.config.inviteTtl);

        expectError(await preview(t, old), 410, 'LINK_INVALID');
        expectError(await accept(t, old), 410, 'LINK_INVALID');
        expect(dataOf<Preview>(await preview(t, fresh))).toMatchObject({ email: invitation.email, role: 'manager', expires_at: data.invitation.expires_at });
        expect((await accept(t, fresh)).statusCode).toBe(201);
      } finally {
        t.advanceClock(-3600);
      }
    });
  });

  describe('registration modes', () => {
    it('in invite mode any workspace admin may invite an e-mail without an account, and the invitee may accept', async () => {
      await setRegistration(t, root, 'invite');
      try {
        const { token } = await newInvitation(owner, owner.workspaceId);
        expectError(await t.request({ method: 'POST', url: '/auth/register', payload: { email: uniqueEmail('self'), password: PASSWORD, name: 'Self' } }), 403, 'REGISTRATION_CLOSED');
        expect((await accept(t, token)).statusCode).toBe(201);
      } finally {
        await setRegistration(t, root, 'open');
      }
    });

    it('in closed mode a workspace admin who is not an instance admin can invite existing accounts only; an instance admin can invite anyone', async () => {
      const existing = await registerUser(t);
      await setRegistration(t, root, 'closed');
      try {
        const email = uniqueEmail('closed');
        const refused = expectError(await invite(t, owner, owner.workspaceId, email, 'viewer'), 403, 'REGISTRATION_CLOSED');
        expect(refused.error).toMatch(/instance administrator/);
        expect((await invitationsOf(owner, owner.workspaceId)).some((i) => i.email === email)).toBe(false);
        // An existing account is still added.
        expect(dataOf<InviteResult>(await invite(t, owner, owner.workspaceId, existing.user.email, 'viewer'), 201).added).toBe(true);

        // The instance admin invites the same e-mail into their workspace; the invitee may create the account.
        const { token } = await newInvitation(root, root.workspaceId, email, 'manager');
        const accepted = await accept(t, token, { name: 'Closed Invitee', password: PASSWORD });
        expect(accepted.statusCode, accepted.body).toBe(201);
        expect(accepted.json<AuthBody>().workspaces).toContainEqual({ id: root.workspaceId, name: "Root Admin's workspace", role: 'manager' });
      } finally {
        await setRegistration(t, root, 'open');
      }
    });
  });

  it("an invitation outlives its inviter's account: invited_by turns null, the link still works", async () => {
    const coAdmin = await registerUser(t, { name: 'Cora Inviter' });
    await addMember(t, owner, owner.workspaceId, coAdmin, 'admin');
    const { token, invitation } = await newInvitation(coAdmin, owner.workspaceId);
    expect(invitation.invited_by).toEqual({ id: coAdmin.user.id, name: 'Cora Inviter' });
    const removed = await t.request({ method: 'DELETE', url: `/admin/users/${coAdmin.user.id}`, token: root.token });
    expect(removed.statusCode, removed.body).toBe(200);
    expect((await invitationsOf(owner, owner.workspaceId)).find((i) => i.id === invitation.id)).toEqual({ ...invitation, invited_by: null });
    expect(dataOf<Preview>(await preview(t, token)).invited_by).toBe('Cora Inviter');
    expect((await accept(t, token)).statusCode).toBe(201);
  });

  it('limits a user to 100 invitations an hour (429), counted over the last hour', async () => {
    const busy = await registerUser(t, { name: 'Busy Admin' });
    for (let i = 0; i < 100; i += 1) {
      const res = await invite(t, busy, busy.workspaceId, `bulk${i}-${randomBytes(3).toString('hex')}@example.test`, 'viewer');
      expect(res.statusCode, `invitation ${i + 1}: ${res.body}`).toBe(201);
      tokens.push(tokenOf(res.json<{ data: InviteResult }>().data.url!));
    }
    const email = uniqueEmail('over');
    expectError(await invite(t, busy, busy.workspaceId, email, 'viewer'), 429, 'RATE_LIMITED');
    expect((await invitationsOf(busy, busy.workspaceId)).some((i) => i.email === email)).toBe(false);
    // The limit is per user: another admin still invites.
    expect((await invite(t, owner, owner.workspaceId, uniqueEmail('free'), 'viewer')).statusCode).toBe(201);
    t.advanceClock(3601);
    try {
      expect((await invite(t, busy, busy.workspaceId, email, 'viewer')).statusCode).toBe(201);
    } finally {
      t.advanceClock(-3601);
    }
  });

  it('never writes an invitation token into the log', async () => {
    // Every route that carries the token in its path, answered and refused.
    const { token } = await newInvitation(owner, owner.workspaceId);
    expect((await preview(t, token)).statusCode).toBe(200);
    expect((await join(t, outsider, token)).statusCode).toBe(403);
    expect((await accept(t, token, { name: 'Logged', password: 'short' })).statusCode).toBe(400);
    expect((await accept(t, token)).statusCode).toBe(201);
    expect((await preview(t, token)).statusCode).toBe(410);
    // The web page of the link (whether or not the web client is built here).
    await t.request({ method: 'GET', url: `/invite/${token}`, headers: { accept: 'text/html' } });
    const text = logs.join('\n');
    expect(text).toContain('/invitations/[redacted]');
    expect(text).toContain('/invite/[redacted]');
    expect(tokens.length).toBeGreaterThan(100);
    for (const secret of tokens) expect(text).not.toContain(secret);
    expect(text).not.toContain(PASSWORD);
  });
});

describe.each(dialects)('invitations and Google sign-in on %s', (dialect) => {
  let google: FakeGoogle;
  let t: TestApp;
  let root: Account;
  beforeAll(async () => {
    google = await startFakeGoogle();
    // No DAM_ALLOW_REGISTRATION: the mode is `invite`.
    t = await startTestApp({ dialect, config: { social: google.config, allowRegistration: false } });
    root = await registerUser(t, { name: 'Root Admin' });
  });
  afterAll(async () => {
    await t.close();
    await google.close();
  });

  const googleAccount = (email: string): FakeAccount => ({ sub: `1${randomBytes(8).readBigUInt64BE().toString().padStart(20, '0')}`, email, email_verified: true, name: 'Gia Google' });
  // Tokens outlive the app's clock moves below (the app checks their expiry by its own clock).
  const callback = (account: FakeAccount) =>
    t.request({ method: 'POST', url: '/auth/social/callback', payload: { access_token: google.issueToken(account, { expiresIn: 30 * DAY }), provider: 'google' } });

  it('a pending invitation lets its e-mail create the account with Google, joining every workspace that invited it', async () => {
    const second = dataOf<{ id: number }>(await t.request({ method: 'POST', url: '/workspaces', token: root.token, payload: { name: 'Second team' } }), 201);
    const email = uniqueEmail('google');
    const first = await inviteNew(t, root, root.workspaceId, email, 'manager');
    const other = await inviteNew(t, root, second.id, email, 'viewer');

    // A stranger without an invitation cannot sign up with Google in invite mode.
    expectError(await callback(googleAccount(uniqueEmail('stranger'))), 403, 'REGISTRATION_CLOSED');

    const res = await callback(googleAccount(email.toUpperCase()));
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<AuthBody>();
    expect(body.user).toEqual({ id: expect.any(Number) as number, email, name: 'Gia Google' });
    expect(body.workspaces).toEqual([
      { id: root.workspaceId, name: "Root Admin's workspace", role: 'manager' },
      { id: second.id, name: 'Second team', role: 'viewer' },
      { id: expect.any(Number) as number, name: "Gia Google's workspace", role: 'admin' },
    ]);
    // Both invitations are used up.
    expectError(await preview(t, first.token), 410, 'LINK_INVALID');
    expectError(await preview(t, other.token), 410, 'LINK_INVALID');
    const list = dataOf<Invitation[]>(await listInvitations(t, root, root.workspaceId, 'all'));
    expect(list.find((i) => i.id === first.invitation.id)).toMatchObject({ status: 'accepted' });
  });

  it('opens Google sign-up whatever the mode: closed, and domains for another domain', async () => {
    for (const [mode, domains] of [['closed', undefined], ['domains', ['elsewhere.test']]] as const) {
      await setRegistration(t, root, mode, domains ? [...domains] : undefined);
      try {
        const email = uniqueEmail(`google-${mode}`);
        const { token } = await inviteNew(t, root, root.workspaceId, email, 'viewer');
        expectError(await callback(googleAccount(uniqueEmail(`stranger-${mode}`))), 403, 'REGISTRATION_CLOSED');
        const res = await callback(googleAccount(email));
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json<AuthBody>().workspaces).toContainEqual({ id: root.workspaceId, name: "Root Admin's workspace", role: 'viewer' });
        expectError(await preview(t, token), 410, 'LINK_INVALID');
      } finally {
        await setRegistration(t, root, 'invite');
      }
    }
  });

  it('an address Google does not vouch for (email_verified false) is not let in by an invitation', async () => {
    const email = uniqueEmail('unverified');
    const { token } = await inviteNew(t, root, root.workspaceId, email);
    expectError(await callback({ ...googleAccount(email), email_verified: false }), 403, 'FORBIDDEN');
    expect((await preview(t, token)).statusCode).toBe(200);
  });

  it('a revoked or expired invitation opens nothing', async () => {
    const revokedEmail = uniqueEmail('revoked');
    const revoked = await inviteNew(t, root, root.workspaceId, revokedEmail);
    expect((await t.request({ method: 'DELETE', url: `/workspaces/${root.workspaceId}/invitations/${revoked.invitation.id}`, token: root.token })).statusCode).toBe(200);
    expectError(await callback(googleAccount(revokedEmail)), 403, 'REGISTRATION_CLOSED');

    const expiredEmail = uniqueEmail('expired');
    await inviteNew(t, root, root.workspaceId, expiredEmail);
    t.advanceClock(t.config.inviteTtl + 1);
    try {
      expectError(await callback(googleAccount(expiredEmail)), 403, 'REGISTRATION_CLOSED');
    } finally {
      t.advanceClock(-(t.config.inviteTtl + 1));
    }
  });
});

describe.each(dialects)('invitations and the plan member limit on %s', (dialect) => {
  let stripe: FakeStripe;
  let t: TestApp;
  beforeAll(async () => {
    stripe = await startFakeStripe();
    const plans = parsePlans(JSON.stringify({ plans: [{ id: 'free', name: 'Free', price_label: 'Free', limits: { members: 2 } }] }), 'test plans');
    t = await startTestApp({ dialect, config: { payments: { plans, stripe: stripe.config(), graceDays: 7 } } });
  });
  afterAll(async () => {
    await t.close();
    await stripe.close();
  });

  it('counts pending invitations as members (402 once members plus pending reach the limit)', async () => {
    const admin = await registerUser(t);
    const first = await inviteNew(t, admin, admin.workspaceId, uniqueEmail('seat'));
    expectError(await invite(t, admin, admin.workspaceId, uniqueEmail('seat'), 'viewer'), 402, 'QUOTA_EXCEEDED');
    // Revoking frees the seat.
    expect((await t.request({ method: 'DELETE', url: `/workspaces/${admin.workspaceId}/invitations/${first.invitation.id}`, token: admin.token })).statusCode).toBe(200);
    await inviteNew(t, admin, admin.workspaceId, uniqueEmail('seat'));
  });
});

describe('invitation links and the sign-in limit per address', () => {
  it('counts GET /invitations/:token and accept per address (429 after the limit)', async () => {
    const t = await startTestApp({ config: { loginRateLimit: 3 } });
    try {
      const admin = await registerUser(t, {});
      const { token } = await inviteNew(t, admin, admin.workspaceId, uniqueEmail('limited'));
      const ip = '198.51.100.77';
      const codes: number[] = [];
      for (let i = 0; i < 3; i += 1) codes.push((await t.request({ method: 'GET', url: `/invitations/${randomBytes(32).toString('base64url')}`, remoteAddress: ip })).statusCode);
      expect(codes).toEqual([410, 410, 410]);
      expectError(await t.request({ method: 'GET', url: `/invitations/${token}`, remoteAddress: ip }), 429, 'RATE_LIMITED');
      expectError(await t.request({ method: 'POST', url: `/invitations/${token}/accept`, remoteAddress: ip, payload: { name: 'N', password: PASSWORD } }), 429, 'RATE_LIMITED');
      // Another address is not affected, and the link was not used by the refused attempts.
      expect((await t.request({ method: 'POST', url: `/invitations/${token}/accept`, remoteAddress: '198.51.100.78', payload: { name: 'N', password: PASSWORD } })).statusCode).toBe(201);
    } finally {
      await t.close();
    }
  });
});
