import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Envelope, ErrorBody, Id, IdParams, ok, PlainName, Role } from '../http/schemas.js';
import type { Services } from '../services/index.js';
import { Member, ShareMaxExpiryDays, WorkspaceItem } from '../contracts/workspaces.js';

const Name = PlainName(200);
const Workspace = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  role: Role,
  created_at: Type.Integer({ description: 'Unix seconds' }),
  modified_at: Type.Integer({ description: 'Unix seconds' }),
  share_max_expiry_days: ShareMaxExpiryDays,
});
const MemberParams = Type.Object({ id: Id('Workspace id'), userId: Id('User id') });
const Deleted = Envelope(Type.Object({ id: Type.Integer() }));
const errors = { 400: ErrorBody, 401: ErrorBody, 402: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody };
const NOT_MEMBER = 'A workspace the caller is not a member of answers 404, like a missing one.';

export const workspaceRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const ws = services.workspaces;
  const tags = ['workspaces'];

  app.get(
    '/workspaces',
    {
      schema: {
        tags,
        summary: 'Workspaces the caller belongs to',
        description: "Every workspace the caller is a member of, by id, with the caller's role in it.",
        response: { 200: Envelope(Type.Array(WorkspaceItem)) },
      },
    },
    async (req) => ok(await ws.list(req.caller)),
  );

  app.post(
    '/workspaces',
    {
      config: { idempotent: true },
      schema: {
        tags,
        summary: 'Create a workspace; the creator is its admin',
        description:
          'Each workspace has its own plan and free quota, so one account may create at most DAM_MAX_WORKSPACES_PER_USER ' +
          'workspaces that still exist (default 10; 0: no limit); past it, 403 WORKSPACE_LIMIT_REACHED with `limit`. ' +
          'Instance admins are not limited. The personal workspace made at registration counts.',
        body: Type.Object({ name: Name }),
        response: { 201: Envelope(Workspace), ...errors },
      },
    },
    async (req, reply) => reply.status(201).send(ok(await ws.create(req.caller, req.body.name))),
  );

  app.get(
    '/workspaces/:id',
    {
      schema: {
        tags,
        summary: 'One workspace (members only)',
        description: "Its name, settings and the caller's role in it. " + NOT_MEMBER,
        params: IdParams,
        response: { 200: Envelope(Workspace), ...errors },
      },
    },
    async (req) => ok(await ws.get(req.caller, req.params.id)),
  );

  app.patch(
    '/workspaces/:id',
    {
      schema: {
        tags,
        summary: 'Rename a workspace or change its settings (admins)',
        description:
          'Only the fields sent change. share_max_expiry_days caps how far ahead managers may set a shared link\'s expiry ' +
          '(links made before keep theirs). A rename is recorded as workspace.rename, a setting as workspace.settings.',
        params: IdParams,
        body: Type.Object(
          { name: Type.Optional(Name), share_max_expiry_days: Type.Optional(ShareMaxExpiryDays) },
          { additionalProperties: false, minProperties: 1 },
        ),
        response: { 200: Envelope(Workspace), ...errors },
      },
    },
    async (req) => ok(await ws.update(req.caller, req.params.id, req.body)),
  );

  app.delete(
    '/workspaces/:id',
    {
      schema: {
        tags,
        summary: 'Delete a workspace and everything in it (admins)',
        description:
          'Its assets, versions, folders, collections, members, invitations and shared links go with it at once; the stored ' +
          'files are deleted by housekeeping soon after. Other members: 403. ' +
          NOT_MEMBER,
        params: IdParams,
        response: { 200: Deleted, ...errors },
      },
    },
    async (req) => {
      await ws.remove(req.caller, req.params.id);
      return ok({ id: req.params.id });
    },
  );

  app.get(
    '/workspaces/:id/members',
    {
      schema: {
        tags,
        summary: 'Members and their roles',
        description: 'Every member, by user id, with e-mail, name, role and when they joined (any member may list them). ' + NOT_MEMBER,
        params: IdParams,
        response: { 200: Envelope(Type.Array(Member)), ...errors },
      },
    },
    async (req) => ok(await ws.members(req.caller, req.params.id)),
  );

  app.post(
    '/workspaces/:id/members',
    {
      schema: {
        tags,
        summary: 'Add an existing user by e-mail (admins)',
        description:
          'The e-mail must belong to an account (404 naming email otherwise; POST /workspaces/{id}/invitations invites ' +
          'anyone). 409 when already a member; 402 when the plan has no room for another member. Recorded as member.add. ' +
          NOT_MEMBER,
        params: IdParams,
        body: Type.Object({ email: Type.String({ format: 'email', maxLength: 254 }), role: Role }),
        response: { 201: Envelope(Member), ...errors },
      },
    },
    async (req, reply) => reply.status(201).send(ok(await ws.addMember(req.caller, req.params.id, req.body.email, req.body.role))),
  );

  app.patch(
    '/workspaces/:id/members/:userId',
    {
      schema: {
        tags,
        summary: "Change a member's role (admins); the last admin cannot be demoted",
        description: 'Demoting the only admin is 409 LAST_ADMIN. Recorded as member.role. ' + NOT_MEMBER,
        params: MemberParams,
        body: Type.Object({ role: Role }),
        response: { 200: Envelope(Member), ...errors },
      },
    },
    async (req) => ok(await ws.changeRole(req.caller, req.params.id, req.params.userId, req.body.role)),
  );

  app.delete(
    '/workspaces/:id/members/:userId',
    {
      schema: {
        tags,
        summary: 'Remove a member (admins; anyone may remove themselves); the last admin cannot be removed',
        description:
          "A member removing themselves leaves the workspace. Removing the only admin is 409 LAST_ADMIN. The member's assets " +
          'stay in the workspace. Recorded as member.remove. ' +
          NOT_MEMBER,
        params: MemberParams,
        response: { 200: Envelope(Type.Object({ user_id: Type.Integer() })), ...errors },
      },
    },
    async (req) => {
      await ws.removeMember(req.caller, req.params.id, req.params.userId);
      return ok({ user_id: req.params.userId });
    },
  );
};
