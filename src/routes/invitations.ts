import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { SignInLimits } from '../http/rate-limits.js';
import { Envelope, ErrorBody, IdParams, ok, PlainName, Role } from '../http/schemas.js';
import type { InvitationService } from '../services/invitation-service.js';
import { INVITATIONS_PER_HOUR } from '../services/invitation-service.js';
import { AuthResult } from '../contracts/auth.js';
import { sessionOrigin } from './session-origin.js';
import { Email, Invitation, InvitationParams, InvitationPreview, InviteResult, NewPassword, TokenParams } from '../contracts/teams.js';
import { WorkspaceItem } from '../contracts/workspaces.js';
import { SMALL_BODY_LIMIT } from '../http/json-body.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 402: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody };
const linkErrors = { 400: ErrorBody, 410: ErrorBody, 429: ErrorBody };

/** Workspace invitations (issue #27, docs/features/teams.md "Invitations"): the admins' side and the invitee's. */
export const invitationRoutes: FastifyPluginAsyncTypebox<{ invitations: InvitationService; limits: SignInLimits }> = async (app, { invitations, limits }) => {
  const tags = ['workspaces'];

  app.post(
    '/workspaces/:id/invitations',
    {
      schema: {
        tags,
        summary: 'Invite someone by e-mail with a role (admins)',
        description:
          'An e-mail that has an account is added to the workspace at once (`added: true`) and told by e-mail when DAM_SMTP_URL is set. ' +
          'Any other gets a single-use invitation link valid DAM_INVITE_TTL seconds (7 days), e-mailed when SMTP is set and always ' +
          'answered as `url` for the admin to copy. 409 when already a member or when an invitation to the e-mail is pending (resend it). ' +
          'Pending invitations count as members against the plan (402). In the `closed` registration mode only instance admins may ' +
          `invite an e-mail without an account (403 REGISTRATION_CLOSED). At most ${INVITATIONS_PER_HOUR} invitations per user per hour (429).`,
        params: IdParams,
        body: Type.Object({ email: Email, role: Role }),
        response: { 201: Envelope(InviteResult), ...errors, 429: ErrorBody },
      },
    },
    async (req, reply) => reply.status(201).send(ok(await invitations.invite(req.caller, req.params.id, req.body.email, req.body.role))),
  );

  app.get(
    '/workspaces/:id/invitations',
    {
      schema: {
        tags,
        summary: "The workspace's invitations (admins), newest first",
        description:
          'Pending invitations (not accepted, revoked or expired), or with status=all every invitation; at most 1,000, ' +
          'newest first. Other members: 403; a workspace the caller is not a member of: 404.',
        params: IdParams,
        querystring: Type.Object({
          status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('all')], { default: 'pending', description: 'pending (default) or all, accepted, revoked and expired included' })),
        }),
        response: { 200: Envelope(Type.Array(Invitation)), ...errors },
      },
    },
    async (req) => ok(await invitations.list(req.caller, req.params.id, req.query.status ?? 'pending')),
  );

  app.post(
    '/workspaces/:id/invitations/:invitationId/resend',
    {
      schema: {
        tags,
        summary: 'Make a new link for a pending or expired invitation and send it again (admins); the old link stops working',
        description:
          'The invitation gets a new link valid DAM_INVITE_TTL seconds, answered as `url` and e-mailed when DAM_SMTP_URL is ' +
          'set (`emailed`). An accepted or revoked invitation is 409 (invite again instead).',
        params: InvitationParams,
        response: { 200: Envelope(Type.Object({ invitation: Invitation, url: Type.String(), emailed: Type.Boolean() })), ...errors },
      },
    },
    async (req) => ok(await invitations.resend(req.caller, req.params.id, req.params.invitationId)),
  );

  app.delete(
    '/workspaces/:id/invitations/:invitationId',
    {
      schema: {
        tags,
        summary: 'Revoke an invitation (admins); its link stops working',
        description:
          'Recorded as member.uninvite; revoking a revoked invitation again changes nothing. An accepted invitation is 409 ' +
          '(remove the member instead).',
        params: InvitationParams,
        response: { 200: Envelope(Type.Object({ id: Type.Integer() })), ...errors },
      },
    },
    async (req) => {
      await invitations.revoke(req.caller, req.params.id, req.params.invitationId);
      return ok({ id: req.params.invitationId });
    },
  );

  app.get(
    '/invitations/:token',
    {
      config: { public: true },
      onRequest: limits.address,
      onResponse: limits.settle,
      schema: {
        tags: ['auth'],
        summary: 'What an invitation link is for: the workspace, role and e-mail',
        description: '410 LINK_INVALID when the link is unknown, used, revoked or expired (the same answer for each). Counted with the sign-in limit per address.',
        params: TokenParams,
        response: { 200: Envelope(InvitationPreview), ...linkErrors },
      },
    },
    async (req) => ok(await invitations.preview(req.params.token)),
  );

  app.post(
    '/invitations/:token/accept',
    {
      config: { public: true },
      // Issue #28: a small body, refused with 413 before it is read in full.
      bodyLimit: SMALL_BODY_LIMIT,
      onRequest: limits.address,
      onResponse: limits.settle,
      schema: {
        tags: ['auth'],
        summary: "Create the invitee's account, join the workspace with the invitation's role, and sign in",
        description:
          "The account's e-mail is the invitation's; like every account it also gets a personal workspace. The link is used up. " +
          '409 EMAIL_TAKEN when an account with the e-mail exists (sign in, then POST /invitations/{token}/join). 410 LINK_INVALID as for GET.',
        params: TokenParams,
        body: Type.Object({ name: PlainName(200), password: NewPassword }),
        response: { 201: AuthResult, ...linkErrors, 402: ErrorBody, 409: ErrorBody },
      },
    },
    async (req, reply) => reply.status(201).send(await invitations.accept(req.params.token, req.body, sessionOrigin(req))),
  );

  app.post(
    '/invitations/:token/join',
    {
      schema: {
        tags: ['auth'],
        summary: "Accept an invitation with the signed-in account (its e-mail must be the invitation's)",
        description: '403 INVITATION_EMAIL_MISMATCH for another e-mail; 410 LINK_INVALID as for GET. Answers the workspace as GET /workspaces lists it.',
        params: TokenParams,
        response: { 200: Envelope(WorkspaceItem), ...linkErrors, 402: ErrorBody, 403: ErrorBody },
      },
    },
    async (req) => ok(await invitations.joinAs(req.caller, req.params.token)),
  );
};
