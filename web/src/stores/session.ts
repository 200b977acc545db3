import { computed, reactive } from 'vue';
import { authApi } from '../api/auth';
import { forgetProxiedImages } from '../api/image-proxy';
import { applyUserLocale } from '../i18n';
import type { AccountUser, AuthResult, Role, User, WorkspaceItem } from '../api/types';

const SESSION_KEY = 'dam.session';
const WORKSPACE_KEY = 'dam.workspace';

/**
 * The user as the session keeps it: a sign-in's, then GET /auth/me's, whose flags of issue #27 (instance admin,
 * password to change) a sign-in answer and a session stored by an earlier release do not carry.
 */
export type SessionUser = User & Partial<Pick<AccountUser, 'is_instance_admin' | 'must_change_password' | 'locale'>>;

interface SessionState {
  token: string | null;
  user: SessionUser | null;
  workspaces: WorkspaceItem[];
  /** The workspace the library shows. */
  workspaceId: number | null;
}

function load(): SessionState {
  try {
    const saved = JSON.parse(localStorage.getItem(SESSION_KEY) ?? 'null') as { token: string; user: SessionUser; workspaces?: WorkspaceItem[] } | null;
    const workspaceId = Number(localStorage.getItem(WORKSPACE_KEY)) || null;
    if (saved?.token) return { token: saved.token, user: saved.user, workspaces: saved.workspaces ?? [], workspaceId };
  } catch {
    // a damaged entry is the same as none
  }
  return { token: null, user: null, workspaces: [], workspaceId: null };
}

export const session = reactive<SessionState>(load());

function persist(): void {
  if (session.token) {
    localStorage.setItem(SESSION_KEY, JSON.stringify({ token: session.token, user: session.user, workspaces: session.workspaces }));
  } else {
    localStorage.removeItem(SESSION_KEY);
  }
  if (session.workspaceId) localStorage.setItem(WORKSPACE_KEY, String(session.workspaceId));
}

/** Keeps the chosen workspace if the user still belongs to it, else the first one. */
function settleWorkspace(): void {
  if (!session.workspaces.some((w) => w.id === session.workspaceId)) session.workspaceId = session.workspaces[0]?.id ?? null;
}

/** Whether the last session was ended by the server (a 401), not by the user: the sign-in page says so. */
let endedByServer = false;
export const sessionExpired = () => endedByServer;

export function startSession(result: AuthResult): void {
  endedByServer = false;
  session.token = result.token;
  session.user = result.user;
  session.workspaces = result.workspaces;
  settleWorkspace();
  persist();
  // The account's flags (instance admin, password to change) come with GET /auth/me; fetched when the answer lacks them.
  if (!('is_instance_admin' in result.user)) void refreshSession().catch(() => undefined);
}

/** `expired`: the server refused the session (disabled account, password changed elsewhere, signed out remotely). */
export function endSession(expired = false): void {
  endedByServer = expired;
  session.token = null;
  session.user = null;
  session.workspaces = [];
  forgetProxiedImages();
  persist();
}

export async function logout(): Promise<void> {
  try {
    await authApi.logout();
  } catch {
    // the session is dropped locally whatever the server says
  }
  endSession();
}

/** Reloads the user and their workspaces (after joining, creating or leaving one). */
export async function refreshSession(): Promise<void> {
  const me = await authApi.me();
  session.user = me.user;
  // Issue #29: the language the user chose (on any device) wins over the browser's.
  applyUserLocale(me.user.locale);
  session.workspaces = me.workspaces;
  settleWorkspace();
  persist();
}

/** Issue #27: the server requires (or no longer requires) a new password before anything else. */
export function setMustChangePassword(value: boolean): void {
  if (!session.user || session.user.must_change_password === value) return;
  session.user = { ...session.user, must_change_password: value };
  persist();
}

/** Issue #29: the language the user just stored (PATCH /auth/me), kept with the session for the next page load. */
export function setSessionLocale(locale: AccountUser['locale']): void {
  if (!session.user) return;
  session.user = { ...session.user, locale };
  persist();
}

export function selectWorkspace(id: number): void {
  if (!session.workspaces.some((w) => w.id === id)) return;
  session.workspaceId = id;
  persist();
}

export const isSignedIn = computed(() => session.token !== null);
export const isInstanceAdmin = computed(() => session.user?.is_instance_admin === true);
export const mustChangePassword = computed(() => session.user?.must_change_password === true);
export const currentWorkspace = computed(() => session.workspaces.find((w) => w.id === session.workspaceId) ?? null);

const RANK: Record<Role, number> = { viewer: 0, manager: 1, admin: 2 };

export function roleIn(workspaceId: number | null | undefined): Role | null {
  return session.workspaces.find((w) => w.id === workspaceId)?.role ?? null;
}

/** Whether the user's role in the workspace is at least `min` (seed 5.5: viewer < manager < admin). */
export function can(workspaceId: number | null | undefined, min: Role): boolean {
  const role = roleIn(workspaceId);
  return role !== null && RANK[role] >= RANK[min];
}
