import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestApp } from './app.js';
import type { Account, Envelope } from './factories.js';

/** Shared shapes and steps of the teams suites (issue #27, docs/features/teams.md): test/teams-*.test.ts. */

export type Role = 'viewer' | 'manager' | 'admin';
export type RegistrationMode = 'open' | 'domains' | 'invite' | 'closed';

export interface ErrorBody {
  error: string;
  code: string;
  field?: string;
}

/** seed 2.4: what every sign-in answers. */
export interface AuthBody {
  user: { id: number; email: string; name: string };
  token: string;
  workspaces: { id: number; name: string; role: Role }[];
}

export interface Invitation {
  id: number;
  workspace_id: number;
  email: string;
  role: Role;
  status: 'pending' | 'accepted' | 'revoked' | 'expired';
  invited_by: { id: number; name: string } | null;
  created_at: number;
  expires_at: number;
  accepted_at: number | null;
  last_sent_at: number;
}

export interface Member {
  user_id: number;
  email: string;
  name: string;
  role: Role;
  created_at: number;
}

export interface InviteResult {
  added: boolean;
  member: Member | null;
  invitation: Invitation | null;
  url: string | null;
  emailed: boolean;
}

export interface AdminUser {
  id: number;
  email: string;
  name: string;
  is_instance_admin: boolean;
  disabled: boolean;
  created_at: number;
  last_login_at: number | null;
  must_change_password: boolean;
  has_password: boolean;
  workspaces: { id: number; name: string; role: Role }[];
  storage_bytes: number;
}

export interface SessionView {
  id: string;
  current: boolean;
  created_at: number;
  last_used_at: number | null;
  expires_at: number;
  ip: string | null;
  device: string | null;
}

export const PASSWORD = 'correct horse battery';

let seq = 0;
/** A fresh e-mail (lower case) under `domain`. */
export function uniqueEmail(prefix = 'teams', domain = 'example.test'): string {
  seq += 1;
  return `${prefix}${seq}-${randomBytes(3).toString('hex')}@${domain}`;
}

/** The data of a `{success: true, data}` answer, after checking the status. */
export function dataOf<T>(res: LightMyRequestResponse, status = 200): T {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json<Envelope<T>>();
  expect(body.success).toBe(true);
  return body.data;
}

/** An error answer: status and code, and the field when given (named in the message too). */
export function expectError(res: LightMyRequestResponse, status: number, code: string, field?: string): ErrorBody {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json<ErrorBody>();
  expect(body.code, res.body).toBe(code);
  expect(typeof body.error).toBe('string');
  expect(body.error.length).toBeGreaterThan(0);
  if (field !== undefined) {
    expect(body.field).toBe(field);
    expect(body.error).toContain(field);
  }
  return body;
}

/** The token of an invitation link (`…/invite/<token>`) or of a password link (`…/reset-password?token=<token>`). */
export function tokenOf(url: string): string {
  const parsed = new URL(url);
  const token = parsed.searchParams.get('token') ?? parsed.pathname.split('/').pop() ?? '';
  expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  return token;
}

export const invite = (t: TestApp, who: Account | string, workspaceId: number, email: string, role: Role = 'viewer') =>
  t.request({ method: 'POST', url: `/workspaces/${workspaceId}/invitations`, token: typeof who === 'string' ? who : who.token, payload: { email, role } });

/** Invites an e-mail without an account; answers the invitation, its url and token. */
export async function inviteNew(t: TestApp, who: Account, workspaceId: number, email: string, role: Role = 'viewer') {
  const data = dataOf<InviteResult>(await invite(t, who, workspaceId, email, role), 201);
  expect(data.added).toBe(false);
  return { invitation: data.invitation!, url: data.url!, token: tokenOf(data.url!), emailed: data.emailed };
}

export const listInvitations = (t: TestApp, who: Account, workspaceId: number, status?: 'pending' | 'all') =>
  t.request({ method: 'GET', url: `/workspaces/${workspaceId}/invitations${status ? `?status=${status}` : ''}`, token: who.token });

export const preview = (t: TestApp, token: string) => t.request({ method: 'GET', url: `/invitations/${token}` });

export const accept = (t: TestApp, token: string, payload: Record<string, unknown> = { name: 'Invited Person', password: PASSWORD }) =>
  t.request({ method: 'POST', url: `/invitations/${token}/accept`, payload });

export const join = (t: TestApp, who: Account | string, token: string) =>
  t.request({ method: 'POST', url: `/invitations/${token}/join`, token: typeof who === 'string' ? who : who.token });

export const login = (t: TestApp, email: string, password: string, extra: { remoteAddress?: string; headers?: Record<string, string> } = {}) =>
  t.request({ method: 'POST', url: '/auth/login', payload: { email, password }, ...extra });

export const me = (t: TestApp, token: string) => t.request({ method: 'GET', url: '/auth/me', token });

/** PATCH /admin/settings as `admin`; answers the settings. */
export async function setRegistration(t: TestApp, admin: Account, mode: RegistrationMode, domains?: string[]) {
  const res = await t.request({
    method: 'PATCH',
    url: '/admin/settings',
    token: admin.token,
    payload: { registration_mode: mode, ...(domains ? { registration_domains: domains } : {}) },
  });
  return dataOf<{ registration_mode: RegistrationMode; registration_domains: string[]; smtp: boolean; public_url: string }>(res);
}

/** The workspaces of an account as GET /workspaces lists them. */
export async function workspacesOf(t: TestApp, token: string): Promise<{ id: number; name: string; role: Role }[]> {
  return dataOf<{ id: number; name: string; role: Role }[]>(await t.request({ method: 'GET', url: '/workspaces', token }));
}

/** An Account from a sign-in answer (accept, confirm, social callback); workspaceId is the personal workspace. */
export function accountOf(body: AuthBody, password = PASSWORD): Account {
  const personal = body.workspaces.find((w) => w.name === `${body.user.name}'s workspace` && w.role === 'admin') ?? body.workspaces[0]!;
  return { ...body, workspaceId: personal.id, password };
}
