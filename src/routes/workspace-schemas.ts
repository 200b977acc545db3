import { Type } from 'typebox';
import { Role } from '../http/schemas.js';

/** seed 2.4: user is {id: number, email, name}. */
export const UserSchema = Type.Object({ id: Type.Integer(), email: Type.String(), name: Type.String() });

/** Workspace as listed for a user: its id, name and the user's role in it. */
export const WorkspaceItem = Type.Object({ id: Type.Integer(), name: Type.String(), role: Role });
