import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Envelope, ErrorBody, Id, ok, Paging, PlainName } from '../http/schemas.js';
import type { UserAdminService } from '../services/user-admin-service.js';
import { PageOf } from '../contracts/catalog.js';
import { AdminSettings, AdminUser, Domain, Email, LinkAnswer, NewPassword, RegistrationMode } from '../contracts/teams.js';

const tags = ['admin'];
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody };
const UserParams = Type.Object({ userId: Id('User id') });
const ADMIN_ONLY = 'Instance admins only (403 ADMIN_ONLY for anyone else).';

/** Instance administration (issue #27, docs/features/teams.md "Instance administration"). */
export const adminUserRoutes: FastifyPluginAsyncTypebox<{ admin: UserAdminService }> = async (app, { admin }) => {
  app.get(
    '/admin/users',
    {
      schema: {
        tags,
        summary: 'The accounts of the instance, by e-mail',
        description: `${ADMIN_ONLY} \`q\` matches a part of the e-mail or the name, whatever the case.`,
        querystring: Type.Object({ q: Type.Optional(Type.String({ maxLength: 200 })), ...Paging }),
        response: { 200: Envelope(PageOf(AdminUser)), ...errors },
      },
    },
    async (req) => ok(await admin.list(req.caller, { q: req.query.q, page: req.query.page ?? 1, per_page: req.query.per_page ?? 50 })),
  );

  app.post(
    '/admin/users',
    {
      schema: {
        tags,
        summary: 'Create an account (with its personal workspace)',
        description:
          `${ADMIN_ONLY} With \`password\`: a temporary password the user must change at first sign-in (until then most requests ` +
          'answer 403 PASSWORD_CHANGE_REQUIRED). Without: a single-use account-setup link valid DAM_INVITE_TTL seconds, e-mailed when ' +
          'DAM_SMTP_URL is set and always answered as `url`. 409 EMAIL_TAKEN.',
        body: Type.Object({ email: Email, name: PlainName(200), password: Type.Optional(NewPassword) }),
        response: { 201: Envelope(Type.Object({ user: AdminUser, url: Type.Union([Type.String(), Type.Null()]), emailed: Type.Boolean() })), ...errors },
      },
    },
    async (req, reply) => reply.status(201).send(ok(await admin.create(req.caller, req.body))),
  );

  app.patch(
    '/admin/users/:userId',
    {
      schema: {
        tags,
        summary: "Rename, disable or enable an account, or change whether it is an instance admin",
        description:
          `${ADMIN_ONLY} Disabling ends every session of the account at once (its next request is a 401) and refuses its sign-in ` +
          '(403 ACCOUNT_DISABLED). Nobody disables or demotes themselves (409 CONFLICT); the last enabled instance admin stays one (409 LAST_INSTANCE_ADMIN).',
        params: UserParams,
        body: Type.Object(
          { name: Type.Optional(PlainName(200)), disabled: Type.Optional(Type.Boolean()), is_instance_admin: Type.Optional(Type.Boolean()) },
          { additionalProperties: false },
        ),
        response: { 200: Envelope(AdminUser), ...errors },
      },
    },
    async (req) => ok(await admin.update(req.caller, req.params.userId, req.body)),
  );

  app.post(
    '/admin/users/:userId/password-link',
    {
      schema: {
        tags,
        summary: 'A new single-use link that sets the account\'s password',
        description: `${ADMIN_ONLY} Valid DAM_INVITE_TTL seconds; earlier links of the account stop working. E-mailed when DAM_SMTP_URL is set.`,
        params: UserParams,
        response: { 200: Envelope(LinkAnswer), ...errors },
      },
    },
    async (req) => ok(await admin.passwordLink(req.caller, req.params.userId)),
  );

  app.delete(
    '/admin/users/:userId',
    {
      schema: {
        tags,
        summary: 'Delete an account',
        description:
          `${ADMIN_ONLY} Each workspace of which the account is the only admin goes to \`transfer_to\` (made its admin); without ` +
          'transfer_to such a workspace is deleted with its assets when the account was its only member, and the deletion is refused ' +
          '(409 naming them) when it has other members. Not one\'s own account (409).',
        params: UserParams,
        querystring: Type.Object({ transfer_to: Type.Optional(Id('The user who takes over the workspaces the deleted account alone administers')) }),
        response: {
          200: Envelope(Type.Object({ id: Type.Integer(), transferred_workspaces: Type.Array(Type.Integer()), deleted_workspaces: Type.Array(Type.Integer()) })),
          ...errors,
        },
      },
    },
    async (req) => ok(await admin.remove(req.caller, req.params.userId, req.query.transfer_to)),
  );

  app.get(
    '/admin/settings',
    { schema: { tags, summary: 'Registration mode and what is configured', description: ADMIN_ONLY, response: { 200: Envelope(AdminSettings), ...errors } } },
    async (req) => ok(await admin.settings(req.caller)),
  );

  app.patch(
    '/admin/settings',
    {
      schema: {
        tags,
        summary: 'Change the registration mode',
        description: `${ADMIN_ONLY} The \`domains\` mode needs at least one domain (400). Domains are stored lower-cased.`,
        body: Type.Object(
          { registration_mode: Type.Optional(RegistrationMode), registration_domains: Type.Optional(Type.Array(Domain, { maxItems: 100 })) },
          { additionalProperties: false },
        ),
        response: { 200: Envelope(AdminSettings), ...errors },
      },
    },
    async (req) => ok(await admin.updateSettings(req.caller, req.body)),
  );
};
