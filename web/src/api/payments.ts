import { requestData } from './http';
import type { BodyOf, DataOf, ItemOf } from './schema';

/** Shapes of the payments API (issue #17, /payments), read from the API's schemas. */

export type PlanList = DataOf<'/payments/plans', 'get'>;
export type Plan = ItemOf<PlanList['plans']>;
/** Per kind; null: unlimited. */
export type Limits = Plan['limits'];
export type LimitKind = keyof Limits;

/**
 * Stripe's subscription status ('none' when the workspace never subscribed). The schema says `string`, on purpose:
 * Stripe may add statuses, so the client compares it with the ones it knows and shows any other as it comes.
 */
export type Subscription = DataOf<'/payments/subscription', 'get'>;
export type Usage = Subscription['usage'];

export type CheckoutRequest = BodyOf<'/payments/create-checkout', 'post'>;
export type Checkout = DataOf<'/payments/create-checkout', 'post'>;
export type PortalLink = DataOf<'/payments/portal', 'post'>;

/**
 * The body of a 402 QUOTA_EXCEEDED beside error and code. Local: the document gives every error one loose shape
 * ({error, code, field?} and any other key), so these fields cannot be derived from it.
 */
export interface QuotaDetails {
  limit: LimitKind;
  used: number;
  requested: number;
}

/** Issue #17: plans and billing of a workspace. Every call answers 404 PAYMENTS_DISABLED when the instance has no payments. */
export const paymentsApi = {
  plans: () => requestData<PlanList>('GET', '/payments/plans'),
  subscription: (workspaceId: number) => requestData<Subscription>('GET', '/payments/subscription', { query: { workspaceId } }),
  /** Workspace admins: a Stripe Checkout for the plan; send the browser to url. */
  createCheckout: (workspaceId: number, plan: string) =>
    requestData<Checkout>('POST', '/payments/create-checkout', { body: { workspaceId, plan } satisfies CheckoutRequest }),
  /** Workspace admins: Stripe's billing portal (card, plan change, cancellation). */
  portal: (workspaceId: number) =>
    requestData<PortalLink>('POST', '/payments/portal', { body: { workspaceId } satisfies BodyOf<'/payments/portal', 'post'> }),
};
export type PaymentsApi = typeof paymentsApi;
