import { Type } from 'typebox';
import { Role } from '../http/schemas.js';

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
