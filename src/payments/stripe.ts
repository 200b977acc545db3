import Stripe from 'stripe';
import type { StripeConfig } from '../config.js';
import { SignatureError, type PaymentEvent, type PaymentProvider, type SubscriptionState } from './types.js';

/** Stripe's own tolerance for a signed timestamp (issue #17: 300 seconds either way of "now"). */
const SIGNATURE_TOLERANCE = 300;

const idOf = (value: unknown): string | null =>
  typeof value === 'string' ? value : value && typeof value === 'object' && typeof (value as { id?: unknown }).id === 'string' ? (value as { id: string }).id : null;

/** The provider through the official SDK, its host/port/protocol taken from DAM_STRIPE_API_URL. */
export class StripePayments implements PaymentProvider {
  private readonly stripe: Stripe;

  constructor(private readonly config: StripeConfig) {
    const url = new URL(config.apiUrl);
    const protocol = url.protocol === 'http:' ? 'http' : 'https';
    this.stripe = new Stripe(config.secretKey, {
      host: url.hostname,
      port: url.port || (protocol === 'http' ? 80 : 443),
      protocol,
      maxNetworkRetries: 2,
      timeout: 20_000,
      telemetry: false,
    });
  }

  async createCustomer(input: { workspaceId: number; name: string; idempotencyKey: string }): Promise<{ id: string }> {
    const customer = await this.stripe.customers.create(
      { name: input.name, metadata: { workspace_id: String(input.workspaceId) } },
      { idempotencyKey: input.idempotencyKey },
    );
    return { id: customer.id };
  }

  async createCheckoutSession(input: Parameters<PaymentProvider['createCheckoutSession']>[0]): Promise<{ id: string; url: string }> {
    const metadata = { workspace_id: String(input.workspaceId), plan: input.planId };
    const session = await this.stripe.checkout.sessions.create(
      {
        mode: 'subscription',
        customer: input.customerId,
        client_reference_id: String(input.workspaceId),
        line_items: [{ price: input.priceId, quantity: 1 }],
        success_url: input.successUrl,
        cancel_url: input.cancelUrl,
        metadata,
        // The subscription carries the workspace too, so its own events name it.
        subscription_data: { metadata },
      },
      { idempotencyKey: input.idempotencyKey },
    );
    if (!session.url) throw new Error(`Stripe answered checkout session ${session.id} without a url`);
    return { id: session.id, url: session.url };
  }

  async createPortalSession(input: { customerId: string; returnUrl: string }): Promise<{ url: string }> {
    const session = await this.stripe.billingPortal.sessions.create({ customer: input.customerId, return_url: input.returnUrl });
    return { url: session.url };
  }

  async retrieveSubscription(id: string): Promise<SubscriptionState> {
    const sub = await this.stripe.subscriptions.retrieve(id);
    const item = sub.items?.data?.[0];
    // API versions from 2025 keep the period on the item; older ones on the subscription.
    const periodEnd = (item as { current_period_end?: number } | undefined)?.current_period_end ?? (sub as unknown as { current_period_end?: number }).current_period_end ?? null;
    return {
      id: sub.id,
      customerId: idOf(sub.customer) ?? '',
      status: sub.status,
      priceId: item ? idOf(item.price) : null,
      currentPeriodEnd: typeof periodEnd === 'number' ? periodEnd : null,
      cancelAtPeriodEnd: Boolean(sub.cancel_at_period_end),
    };
  }

  verifyEvent(rawBody: Buffer, signature: string | undefined, nowSeconds: number): PaymentEvent {
    if (!signature) throw new SignatureError('The Stripe-Signature header is missing');
    // Stripe's SDK refuses only timestamps older than the tolerance; one from the future is refused here (issue #28).
    const signedAt = Number(/(?:^|,)\s*t=(\d{1,12})(?:,|$)/.exec(signature)?.[1]);
    if (Number.isFinite(signedAt) && signedAt - nowSeconds > SIGNATURE_TOLERANCE) {
      throw new SignatureError(`The Stripe-Signature timestamp is more than ${SIGNATURE_TOLERANCE} s in the future`);
    }
    let event: Stripe.Event;
    try {
      event = this.stripe.webhooks.constructEvent(rawBody, signature, this.config.webhookSecret, SIGNATURE_TOLERANCE, undefined, nowSeconds * 1000);
    } catch (err) {
      throw new SignatureError(`The Stripe-Signature does not verify: ${(err as Error).message}`);
    }
    return { id: event.id, type: event.type, created: event.created, object: event.data.object as unknown as Record<string, unknown> };
  }
}
