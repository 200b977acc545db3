import { requestData } from './http';
import type { BodyOf, DataOf } from './schema';
import type { Role } from './types';

type Members = '/workspaces/{id}/members';
type MemberPath = '/workspaces/{id}/members/{userId}';

export const workspacesApi = {
  list: () => requestData<DataOf<'/workspaces', 'get'>>('GET', '/workspaces'),
  create: (name: string) =>
    requestData<DataOf<'/workspaces', 'post'>>('POST', '/workspaces', { body: { name } satisfies BodyOf<'/workspaces', 'post'> }),
  get: (id: number) => requestData<DataOf<'/workspaces/{id}', 'get'>>('GET', `/workspaces/${id}`),
  rename: (id: number, name: string) =>
    requestData<DataOf<'/workspaces/{id}', 'patch'>>('PATCH', `/workspaces/${id}`, { body: { name } satisfies BodyOf<'/workspaces/{id}', 'patch'> }),
  remove: (id: number) => requestData<DataOf<'/workspaces/{id}', 'delete'>>('DELETE', `/workspaces/${id}`),
  members: (id: number) => requestData<DataOf<Members, 'get'>>('GET', `/workspaces/${id}/members`),
  addMember: (id: number, email: string, role: Role) =>
    requestData<DataOf<Members, 'post'>>('POST', `/workspaces/${id}/members`, { body: { email, role } satisfies BodyOf<Members, 'post'> }),
  changeRole: (id: number, userId: number, role: Role) =>
    requestData<DataOf<MemberPath, 'patch'>>('PATCH', `/workspaces/${id}/members/${userId}`, { body: { role } satisfies BodyOf<MemberPath, 'patch'> }),
  removeMember: (id: number, userId: number) => requestData<DataOf<MemberPath, 'delete'>>('DELETE', `/workspaces/${id}/members/${userId}`),
};
