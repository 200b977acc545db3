import { Type } from 'typebox';
import { DEFAULT_SHARE_MAX_EXPIRY_DAYS, MAX_SHARE_MAX_EXPIRY_DAYS } from '../domain/shares.js';
import { Role } from '../http/schemas.js';

/** Issue #28: the managers' cap on a shared link's expiry, in days. */
export const ShareMaxExpiryDays = Type.Integer({
  minimum: 1,
  maximum: MAX_SHARE_MAX_EXPIRY_DAYS,
  description:
    `How many days ahead managers may set a shared link's expiry (default ${DEFAULT_SHARE_MAX_EXPIRY_DAYS}): a later expires_at ` +
    'is 403 FORBIDDEN naming the latest allowed. Workspace admins are not capped (and alone may make a link that never expires)',
});

/** seed 2.4: user is {id: number, email, name}. */
export const UserSchema = Type.Object({ id: Type.Integer(), email: Type.String(), name: Type.String() });

/** Workspace as listed for a user: its id, name and the user's role in it. */
export const WorkspaceItem = Type.Object({ id: Type.Integer(), name: Type.String(), role: Role });

/** A member of a workspace with their role (GET /workspaces/:id/members; an invitation's answer when the e-mail had an account). */
export const Member = Type.Object({
  user_id: Type.Integer(),
  email: Type.String(),
  name: Type.String(),
  role: Role,
  created_at: Type.Integer(),
});
