import { request, requestData } from './http';
import type { BodyOf, DataOf, ItemOf, QueryOf, ResponseOf } from './schema';

/**
 * Invitations (issue #27, docs/features/teams.md): a workspace admin invites by e-mail and role; the invitee opens
 * /invite/<token> and creates an account or joins with theirs. Shapes read from the API's schemas (./schema.ts).
 */
type List = '/workspaces/{id}/invitations';
type Resend = '/workspaces/{id}/invitations/{invitationId}/resend';
type One = '/workspaces/{id}/invitations/{invitationId}';

export type Invitation = ItemOf<DataOf<List, 'get'>>;
export type InvitationStatus = Invitation['status'];
type InviteAnswer = DataOf<List, 'post'>;
/**
 * POST /workspaces/:id/invitations: someone with an account is added at once (`member`); anyone else gets an invitation
 * and its link. Narrowed here: the schema can only say that each of member, invitation and url may be null.
 */
export type InviteResult =
  | (InviteAnswer & { added: true; member: NonNullable<InviteAnswer['member']>; invitation: null; url: null })
  | (InviteAnswer & { added: false; member: null; invitation: Invitation; url: string });
/** A resent invitation: its new link and expiry. */
export type InvitationLink = DataOf<Resend, 'post'>;
/** GET /invitations/:token: what the invitee is shown. */
export type InvitationPreview = DataOf<'/invitations/{token}', 'get'>;

const base = (workspaceId: number) => `/workspaces/${workspaceId}/invitations`;
const enc = encodeURIComponent;

export const invitationsApi = {
  // The workspace admin's side.
  invite: (workspaceId: number, email: string, role: BodyOf<List, 'post'>['role']) =>
    requestData<InviteResult>('POST', base(workspaceId), { body: { email, role } satisfies BodyOf<List, 'post'> }),
  list: (workspaceId: number, status: NonNullable<QueryOf<List, 'get'>['status']> = 'pending') =>
    requestData<Invitation[]>('GET', base(workspaceId), { query: { status } }),
  /** A new link (the old one stops working) and a new expiry, mailed again. */
  resend: (workspaceId: number, id: number) => requestData<InvitationLink>('POST', `${base(workspaceId)}/${id}/resend`),
  revoke: (workspaceId: number, id: number) => requestData<DataOf<One, 'delete'>>('DELETE', `${base(workspaceId)}/${id}`),

  // The invitee's side: the token is the secret. 410 LINK_INVALID for a link unknown, used, revoked or expired.
  preview: (token: string) => requestData<InvitationPreview>('GET', `/invitations/${enc(token)}`, { auth: false }),
  /** Creates the account of the invitation's e-mail and signs in (the sign-in answer, without the envelope). 409 EMAIL_TAKEN. */
  accept: (token: string, name: string, password: string) =>
    request<ResponseOf<'/invitations/{token}/accept', 'post'>>('POST', `/invitations/${enc(token)}/accept`, {
      body: { name, password } satisfies BodyOf<'/invitations/{token}/accept', 'post'>,
      auth: false,
    }),
  /** Joins with the signed-in account (403 INVITATION_EMAIL_MISMATCH for another e-mail); answers the workspace as GET /workspaces lists it. */
  join: (token: string) => requestData<DataOf<'/invitations/{token}/join', 'post'>>('POST', `/invitations/${enc(token)}/join`),
};
