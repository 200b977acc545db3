import { randomBytes } from 'node:crypto';
import type { TestApp } from './app.js';

/** `{ success: true, data }`: the envelope of every endpoint the seed leaves "not shown". */
export interface Envelope<T> {
  success: true;
  data: T;
}

export interface Account {
  token: string;
  user: { id: number; email: string; name: string };
  workspaces: { id: number; name: string; role: string }[];
  /** The personal workspace created at registration. */
  workspaceId: number;
  password: string;
}

let counter = 0;

/** Registers a user through the public API. */
export async function registerUser(t: TestApp, overrides: { email?: string; name?: string; password?: string } = {}): Promise<Account> {
  counter += 1;
  const email = overrides.email ?? `user${counter}-${randomBytes(3).toString('hex')}@example.test`;
  const password = overrides.password ?? 'correct horse battery';
  const res = await t.request({
    method: 'POST',
    url: '/auth/register',
    payload: { email, password, name: overrides.name ?? `User ${counter}` },
  });
  if (res.statusCode !== 201) throw new Error(`register failed: ${res.statusCode} ${res.body}`);
  const body = res.json<Omit<Account, 'workspaceId' | 'password'>>();
  return { ...body, workspaceId: body.workspaces[0]!.id, password };
}

/** Adds `member` to `owner`'s workspace with the given role, through the API. */
export async function addMember(t: TestApp, owner: Account, workspaceId: number, member: Account, role: 'viewer' | 'manager' | 'admin'): Promise<void> {
  const res = await t.request({
    method: 'POST',
    url: `/workspaces/${workspaceId}/members`,
    token: owner.token,
    payload: { email: member.user.email, role },
  });
  if (res.statusCode !== 201) throw new Error(`add member failed: ${res.statusCode} ${res.body}`);
}
