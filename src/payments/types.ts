/**
 * The one small interface the service talks to its payment provider through (issue #17).
 * Stripe is the implementation (stripe.ts); tests point it at test/helpers/fake-stripe.ts.
 */

/** A subscription as the provider holds it now (re-read, never taken from an event's payload). */
export interface SubscriptionState {
  id: string;
  customerId: string;
  /** Stripe's status: active, trialing, past_due, unpaid, canceled, incomplete, incomplete_expired, paused. */
  status: string;
  /** Price of the subscription's first item: which plan it is. */
  priceId: string | null;
  /** Unix seconds. */
  currentPeriodEnd: number | null;
  cancelAtPeriodEnd: boolean;
}

/** A verified webhook event: only the members the service reads. */
export interface PaymentEvent {
  id: string;
  type: string;
  /** Unix seconds. */
  created: number;
  object: Record<string, unknown>;
}

export class SignatureError extends Error {}

export interface PaymentProvider {
  createCustomer(input: { workspaceId: number; name: string; idempotencyKey: string }): Promise<{ id: string }>;
  createCheckoutSession(input: {
    customerId: string;
    priceId: string;
    workspaceId: number;
    planId: string;
    successUrl: string;
    cancelUrl: string;
    idempotencyKey: string;
  }): Promise<{ id: string; url: string }>;
  createPortalSession(input: { customerId: string; returnUrl: string }): Promise<{ url: string }>;
  retrieveSubscription(id: string): Promise<SubscriptionState>;
  /** Verifies the signature over the exact bytes received; throws SignatureError when it does not hold. */
  verifyEvent(rawBody: Buffer, signature: string | undefined, nowSeconds: number): PaymentEvent;
}
