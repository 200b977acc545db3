import { requestData } from './http';
import type { Member, Role, WorkspaceItem } from './types';

export const workspacesApi = {
  list: () => requestData<WorkspaceItem[]>('GET', '/workspaces'),
  create: (name: string) => requestData<WorkspaceItem>('POST', '/workspaces', { body: { name } }),
  rename: (id: number, name: string) => requestData<WorkspaceItem>('PATCH', `/workspaces/${id}`, { body: { name } }),
  remove: (id: number) => requestData<{ id: number }>('DELETE', `/workspaces/${id}`),
  members: (id: number) => requestData<Member[]>('GET', `/workspaces/${id}/members`),
  addMember: (id: number, email: string, role: Role) => requestData<Member>('POST', `/workspaces/${id}/members`, { body: { email, role } }),
  changeRole: (id: number, userId: number, role: Role) =>
    requestData<Member>('PATCH', `/workspaces/${id}/members/${userId}`, { body: { role } }),
  removeMember: (id: number, userId: number) => requestData<{ user_id: number }>('DELETE', `/workspaces/${id}/members/${userId}`),
};
