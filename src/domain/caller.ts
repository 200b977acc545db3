/** The authenticated caller, attached to each request by the auth hook. */
export interface Caller {
  id: number;
  email: string;
  name: string;
  isInstanceAdmin: boolean;
  sessionId: string;
  /** Issue #27: an admin set a temporary password; the auth hook refuses most routes until it is changed. */
  mustChangePassword: boolean;
  /** The change token of this request's cached reads (services/fresh-reads.ts); absent on PostgreSQL. */
  changes?: () => string;
}
