import type { PaymentsConfig } from '../config.js';
import { StripePayments } from './stripe.js';
import type { PaymentProvider } from './types.js';

export type { PaymentProvider, PaymentEvent, SubscriptionState } from './types.js';
export { SignatureError } from './types.js';

/** null without DAM_STRIPE_SECRET_KEY: payments are off. */
export function createPaymentProvider(config: PaymentsConfig): PaymentProvider | null {
  return config.stripe ? new StripePayments(config.stripe) : null;
}
