import type { AppContext } from '../context.js';
import type { Role } from '../db/schema.js';
import { notFound } from '../errors.js';
import { findActiveSessionUser, type SessionUserRow } from '../repositories/sessions.js';
import { findRole, listWorkspacesOfUser, type WorkspaceWithRole } from '../repositories/workspaces.js';
import { AnswerCache } from '../domain/answer-cache.js';

/** Who reads: a user, and the change token of their request (Caller.changes). */
export interface Reader {
  readonly id: number;
  readonly changes?: () => string;
}

/** 10,000 each; their keys are ids (well under 100 characters each), which `bytes` bounds with room to spare. */
const LIMITS = { entries: 10_000, bytes: 4_000_000, maxAgeSeconds: 30 };

/**
 * The reads nearly every authenticated request makes (its session, the caller's workspaces, a role), remembered
 * while the database is unchanged (issue #18: with the answer itself cached, these statements were most of what a
 * repeated read cost). They use the database's change token as the answer cache does (domain/answer-cache.ts):
 * **revocation stays immediate.** A logout, a removed member, a changed role or a deleted user is a write, and any
 * write (by this process, or by another process on the same SQLite file) changes the token, so the next request
 * reads afresh. A session's expiry is a matter of time, not of a write: it is checked against the clock on every
 * request. On PostgreSQL (no change token) every request reads. Values are shared between requests: read-only.
 * Only reads outside transactions go through here; the checks inside a transaction read the transaction.
 * `changes`: the request's change token (`requestToken()`, kept on its Caller), so that a request asks
 * SQLite for other processes' commits once rather than at each of these reads.
 */
export class FreshReads {
  private readonly sessions: AnswerCache<SessionUserRow | undefined>;
  private readonly workspaces: AnswerCache<WorkspaceWithRole[]>;
  private readonly roles: AnswerCache<Role | undefined>;
  /** A new request's change token (DialectSupport.requestChangeToken); undefined without a change counter. */
  readonly requestToken: () => (() => string) | undefined;

  constructor(private readonly ctx: AppContext) {
    const support = ctx.database.support;
    this.requestToken = () => support.requestChangeToken?.();
    const token = support.changeToken?.bind(support);
    const now = () => ctx.now();
    this.sessions = new AnswerCache(token, now, LIMITS, () => 1);
    this.workspaces = new AnswerCache(token, now, LIMITS, () => 1);
    this.roles = new AnswerCache(token, now, LIMITS, () => 1);
  }

  /** The user of a session that exists, belongs to that user, is not revoked and has not expired (by the clock, now). */
  async sessionUser(sessionId: string, userId: number, changes?: () => string): Promise<SessionUserRow | undefined> {
    const row = await this.sessions.get(`${sessionId} ${userId}`, () => findActiveSessionUser(this.ctx.db, sessionId, userId, this.ctx.now()), changes);
    return row && row.session_expires_at > this.ctx.now() ? row : undefined;
  }

  /** The caller's workspaces with their role, by id. */
  workspacesOf(caller: Reader): Promise<WorkspaceWithRole[]> {
    return this.workspaces.get(String(caller.id), () => listWorkspacesOfUser(this.ctx.db, caller.id), caller.changes);
  }

  /** A read of a workspace: any member may (requireRole with 'viewer'); anyone else gets 404. */
  async requireMember(workspaceId: number, caller: Reader): Promise<Role> {
    const role = await this.roles.get(`${workspaceId} ${caller.id}`, () => findRole(this.ctx.db, workspaceId, caller.id), caller.changes);
    if (!role) throw notFound('Workspace');
    return role;
  }
}
