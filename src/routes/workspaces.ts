import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Envelope, ErrorBody, Id, IdParams, ok, PlainName, Role } from '../http/schemas.js';
import type { Services } from '../services/index.js';
import { Member, ShareMaxExpiryDays, WorkspaceItem } from './workspace-schemas.js';

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

export const workspaceRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const ws = services.workspaces;
  const tags = ['workspaces'];

  app.get(
    '/workspaces',
    { schema: { tags, summary: 'Workspaces the caller belongs to', response: { 200: Envelope(Type.Array(WorkspaceItem)) } } },
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
    { schema: { tags, summary: 'One workspace (members only)', params: IdParams, response: { 200: Envelope(Workspace), ...errors } } },
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
    { schema: { tags, summary: 'Members and their roles', params: IdParams, response: { 200: Envelope(Type.Array(Member)), ...errors } } },
    async (req) => ok(await ws.members(req.caller, req.params.id)),
  );

  app.post(
    '/workspaces/:id/members',
    {
      schema: {
        tags,
        summary: 'Add an existing user by e-mail (admins)',
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
