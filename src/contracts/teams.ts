import { Type } from 'typebox';
import { Id, Role } from '../http/schemas.js';
import { LINK_TOKEN_PATTERN } from '../domain/link-tokens.js';
import { Member } from './workspaces.js';

/** Schemas of invitations, instance administration and account security (issue #27, docs/features/teams.md). */

export const Email = Type.String({ format: 'email', maxLength: 254 });
export const NewPassword = Type.String({ minLength: 8, maxLength: 200, description: '8 to 200 characters' });
const Time = (description = 'Unix seconds') => Type.Integer({ description });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const LinkToken = Type.String({
  pattern: LINK_TOKEN_PATTERN,
  maxLength: 43,
  description: 'The token of an invitation or password link (43 characters, base64url)',
  examples: ['Xq3v9Yb0kq1m2n3o4p5q6r7s8t9u0v1w2x3y4z5A6B7'],
});


export const Invitation = Type.Object({
  id: Type.Integer(),
  workspace_id: Type.Integer(),
  email: Type.String(),
  role: Role,
  status: Type.Union([Type.Literal('pending'), Type.Literal('accepted'), Type.Literal('revoked'), Type.Literal('expired')]),
  invited_by: Nullable(Type.Object({ id: Type.Integer(), name: Type.String() })),
  created_at: Time(),
  expires_at: Time(),
  accepted_at: Nullable(Time()),
  last_sent_at: Time('When the link was last made (created or resent)'),
});

export const InviteResult = Type.Object({
  added: Type.Boolean({ description: 'true: the e-mail had an account and is now a member; false: an invitation was made' }),
  member: Nullable(Member),
  invitation: Nullable(Invitation),
  url: Nullable(Type.String({ description: 'The invitation link (for the admin to copy); null when added' })),
  emailed: Type.Boolean({ description: 'Whether an e-mail was sent (DAM_SMTP_URL set and the send succeeded)' }),
});

export const InvitationPreview = Type.Object({
  email: Type.String(),
  role: Role,
  workspace: Type.Object({ id: Type.Integer(), name: Type.String() }),
  invited_by: Nullable(Type.String()),
  expires_at: Time(),
  account_exists: Type.Boolean({ description: 'An account with this e-mail exists: sign in and join instead of accepting' }),
});

export const InvitationParams = Type.Object({ id: Id('Workspace id'), invitationId: Id('Invitation id') });
export const TokenParams = Type.Object({ token: LinkToken });

export const RegistrationMode = Type.Union(
  [Type.Literal('open'), Type.Literal('domains'), Type.Literal('invite'), Type.Literal('closed')],
  { description: 'open: anyone; domains: e-mails of registration_domains; invite: invitees only; closed: only instance admins bring people in' },
);
export const Domain = Type.String({
  pattern: '^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$',
  maxLength: 253,
  description: 'A host name such as example.com',
  examples: ['example.com'],
});

export const AdminUser = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  name: Type.String(),
  is_instance_admin: Type.Boolean(),
  disabled: Type.Boolean(),
  created_at: Time(),
  last_login_at: Nullable(Time()),
  must_change_password: Type.Boolean(),
  has_password: Type.Boolean(),
  workspaces: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), role: Role })),
  storage_bytes: Type.Integer({ description: 'Stored bytes of the workspaces the user administers' }),
});

export const AdminSettings = Type.Object({
  registration_mode: RegistrationMode,
  registration_domains: Type.Array(Type.String()),
  smtp: Type.Boolean({ description: 'Whether e-mail is configured (DAM_SMTP_URL)' }),
  public_url: Type.String(),
});

export const LinkAnswer = Type.Object({
  url: Type.String({ description: 'The single-use link' }),
  emailed: Type.Boolean(),
});

export const Session = Type.Object({
  id: Type.String(),
  current: Type.Boolean({ description: 'The session of this request' }),
  created_at: Time(),
  last_used_at: Nullable(Time('Updated at most once a minute')),
  expires_at: Time(),
  ip: Nullable(Type.String()),
  device: Nullable(Type.String({ description: 'Browser and system from the User-Agent at sign-in, e.g. "Chrome 120 on Mac OS"' })),
});

export const AuthOptions = Type.Object({
  registration: RegistrationMode,
  registration_domains: Type.Array(Type.String()),
  password_reset: Type.Boolean({ description: 'Forgotten passwords can be reset by e-mail (DAM_SMTP_URL is set)' }),
});

