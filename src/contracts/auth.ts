import { Type } from 'typebox';
import { UserSchema, WorkspaceItem } from './workspaces.js';

/** seed 2.4: what a sign-in answers. */
export const AuthResult = Type.Object({ user: UserSchema, token: Type.String(), workspaces: Type.Array(WorkspaceItem) });
