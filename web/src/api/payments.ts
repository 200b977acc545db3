import { requestData } from './http';

/** Shapes of the payments API (issue #17, /payments; the schemas in src/routes/payment-schemas.ts). */

export type LimitKind = 'storage_bytes' | 'members' | 'assets';

/** Per kind; null: unlimited. */
export type Limits = Record<LimitKind, number | null>;
export type Usage = Record<LimitKind, number>;

export interface Plan {
  id: string;
  name: string;
  /** The plan every workspace starts on; it is not bought. */
  free: boolean;
  /** Short display text such as "EUR 12 / month"; null when the plans file gives none. */
  price_label: string | null;
  limits: Limits;
}

/** Stripe's subscription status, or none when the workspace never subscribed. */
export type SubscriptionStatus = 'none' | 'active' | 'trialing' | 'past_due' | 'unpaid' | 'canceled' | 'incomplete' | 'incomplete_expired' | 'paused' | (string & {});

export interface Subscription {
  /** Id of the plan whose limits apply. */
  plan: string;
  plan_name: string;
  status: SubscriptionStatus;
  /** Unix seconds; null without a subscription. */
  current_period_end: number | null;
  cancel_at_period_end: boolean;
  limits: Limits;
  usage: Usage;
  /** Writes are refused (402 SUBSCRIPTION_PAST_DUE): the payment failed and the grace period is over. */
  read_only: boolean;
  /** Unix seconds when a past_due workspace turns (or turned) read-only; null otherwise. */
  past_due_until: number | null;
}

/** The body of a 402 QUOTA_EXCEEDED beside error and code. */
export interface QuotaDetails {
  limit: LimitKind;
  used: number;
  requested: number;
}

/** Issue #17: plans and billing of a workspace. Every call answers 404 PAYMENTS_DISABLED when the instance has no payments. */
export const paymentsApi = {
  plans: () => requestData<{ plans: Plan[] }>('GET', '/payments/plans'),
  subscription: (workspaceId: number) => requestData<Subscription>('GET', '/payments/subscription', { query: { workspaceId } }),
  /** Workspace admins: a Stripe Checkout for the plan; send the browser to url. */
  createCheckout: (workspaceId: number, plan: string) => requestData<{ id: string; url: string }>('POST', '/payments/create-checkout', { body: { workspaceId, plan } }),
  /** Workspace admins: Stripe's billing portal (card, plan change, cancellation). */
  portal: (workspaceId: number) => requestData<{ url: string }>('POST', '/payments/portal', { body: { workspaceId } }),
};
export type PaymentsApi = typeof paymentsApi;
