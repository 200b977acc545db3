import { createHash } from 'node:crypto';
import type { AppContext } from '../context.js';
import { AppError, appError } from '../errors.js';
import { freePlan, LIVE_STATUSES as LIVE, planInEffect, type Plan } from '../payments/plans.js';
import { SignatureError, type PaymentEvent, type PaymentProvider, type SubscriptionState } from '../payments/index.js';
import * as repo from '../repositories/payments.js';
import { findWorkspace } from '../repositories/workspaces.js';
import type { CreateCheckoutInput, PlansView, PortalInput, SubscriptionView, WebhookResult } from '../contracts/payments.js';
import { findUsage } from '../repositories/usage.js';
import * as quota from './quota-service.js';
import { requireRole } from './access.js';
import type { Caller } from './auth-service.js';

/** Events that change a subscription's state; every other type is acknowledged and ignored. */
const HANDLED = new Set([
  'checkout.session.completed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'invoice.paid',
  'invoice.payment_failed',
]);

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : v && typeof v === 'object' && typeof (v as { id?: unknown }).id === 'string' ? (v as { id: string }).id : null);

/**
 * Plans, Stripe checkout and portal, subscription state from webhooks (issue #17, step 1: no limit is
 * enforced yet). Every operation answers 404 PAYMENTS_DISABLED when no provider is configured.
 */
export class PaymentService {
  private readonly plans: readonly Plan[];
  private readonly free: Plan;
  /** Tells this instance's idempotency keys from another's on the same Stripe account (workspace ids repeat). */
  private readonly instanceTag: string;

  constructor(
    private readonly ctx: AppContext,
    private readonly provider: PaymentProvider | null,
  ) {
    this.plans = ctx.config.payments.plans;
    this.free = freePlan(this.plans);
    this.instanceTag = createHash('sha256').update(ctx.config.publicUrl).digest('hex').slice(0, 12);
  }

  private enabled(): PaymentProvider {
    if (!this.provider) throw appError('PAYMENTS_DISABLED');
    return this.provider;
  }

  /** The plan whose limits apply to a billing state: the subscription's while it is live, otherwise the free plan. */
  effectivePlan(billing: repo.BillingRecord | undefined): Plan {
    return planInEffect(this.plans, billing);
  }

  private billingPage(workspaceId: number): string {
    return `${this.ctx.config.publicUrl}/settings/${workspaceId}/billing`;
  }

  async createCheckout(caller: Caller, input: CreateCheckoutInput): Promise<{ id: string; url: string }> {
    const provider = this.enabled();
    await requireRole(this.ctx.db, input.workspaceId, caller.id, 'admin', { billing: true });
    const plan = this.plans.find((p) => p.id === input.plan);
    if (!plan) {
      throw appError('VALIDATION_ERROR', `plan "${input.plan}" is not a plan of this instance (${this.plans.map((p) => p.id).join(', ')})`, { field: 'plan' });
    }
    if (!plan.stripe_price_id) throw appError('CONFLICT', `plan "${plan.id}" is the free plan: it is not bought, cancel the subscription in the billing portal instead`);
    const billing = await repo.findBilling(this.ctx.db, input.workspaceId);
    const current = this.effectivePlan(billing);
    if (current.id === plan.id) throw appError('CONFLICT', `The workspace is already on plan "${plan.id}"`);
    // A second subscription would bill the customer twice: changing plans goes through the portal.
    if (current.stripe_price_id !== undefined) {
      throw appError('CONFLICT', `The workspace already subscribes to plan "${current.id}"; change plans in the billing portal (POST /payments/portal)`);
    }
    const customerId = await this.customerOf(provider, input.workspaceId);
    const page = this.billingPage(input.workspaceId);
    return this.call(() =>
      provider.createCheckoutSession({
        customerId,
        priceId: plan.stripe_price_id!,
        workspaceId: input.workspaceId,
        planId: plan.id,
        successUrl: `${page}?checkout=success&session_id={CHECKOUT_SESSION_ID}`,
        cancelUrl: `${page}?checkout=canceled`,
        // Repeated clicks within the hour get the same session back rather than a second one to pay.
        idempotencyKey: `dam-checkout-${input.workspaceId}-${plan.id}-${customerId}-${Math.floor(this.ctx.now() / 3600)}`,
      }),
    );
  }

  async portal(caller: Caller, input: PortalInput): Promise<{ url: string }> {
    const provider = this.enabled();
    await requireRole(this.ctx.db, input.workspaceId, caller.id, 'admin', { billing: true });
    const billing = await repo.findBilling(this.ctx.db, input.workspaceId);
    if (!billing?.stripe_customer_id) throw appError('CONFLICT', 'This workspace has no billing account yet: subscribe to a plan first (POST /payments/create-checkout)');
    const customerId = billing.stripe_customer_id;
    return this.call(() => provider.createPortalSession({ customerId, returnUrl: this.billingPage(input.workspaceId) }));
  }

  async subscription(caller: Caller, workspaceId: number): Promise<SubscriptionView> {
    this.enabled();
    await requireRole(this.ctx.db, workspaceId, caller.id, 'viewer');
    const billing = await repo.findBilling(this.ctx.db, workspaceId);
    const plan = this.effectivePlan(billing);
    const readOnlyFrom = await quota.readOnlyFrom(this.ctx, this.ctx.db, workspaceId);
    return {
      plan: plan.id,
      plan_name: plan.name,
      status: billing?.status ?? 'none',
      current_period_end: billing?.status ? billing.current_period_end : null,
      cancel_at_period_end: billing?.cancel_at_period_end === 1,
      limits: {
        storage_bytes: plan.limits.storage_bytes ?? null,
        members: plan.limits.members ?? null,
        assets: plan.limits.assets ?? null,
      },
      usage: await this.usage(workspaceId),
      read_only: readOnlyFrom !== null && this.ctx.now() >= readOnlyFrom,
      past_due_until: readOnlyFrom,
    };
  }

  private async usage(workspaceId: number): Promise<SubscriptionView['usage']> {
    const row = await findUsage(this.ctx.db, workspaceId);
    return { storage_bytes: row.storage_bytes, members: row.members, assets: row.assets };
  }

  /** The plans of this instance, in the plans file's order (any signed-in user). */
  plansList(): PlansView {
    this.enabled();
    return {
      plans: this.plans.map((p) => ({
        id: p.id,
        name: p.name,
        free: p.stripe_price_id === undefined,
        price_label: p.price_label ?? null,
        limits: { storage_bytes: p.limits.storage_bytes ?? null, members: p.limits.members ?? null, assets: p.limits.assets ?? null },
      })),
    };
  }

  /**
   * A Stripe delivery: verified over its raw bytes, processed once per event id. The subscription is
   * re-read from Stripe rather than taken from the payload, so events arriving out of order cannot
   * apply an older state; the state and the event id are written in one transaction.
   */
  async webhook(rawBody: Buffer, signature: string | undefined, log: { error(obj: object, msg: string): void }): Promise<WebhookResult> {
    const provider = this.enabled();
    let event: PaymentEvent;
    try {
      event = provider.verifyEvent(rawBody, signature, this.ctx.now());
    } catch (err) {
      if (err instanceof SignatureError) throw appError('WEBHOOK_SIGNATURE_INVALID', err.message, { field: 'stripe-signature' });
      throw err;
    }
    if (await repo.eventSeen(this.ctx.db, event.id)) return { received: true, duplicate: true };
    try {
      const target = HANDLED.has(event.type) ? this.subscriptionOf(event) : null;
      const state = target ? await provider.retrieveSubscription(target) : null;
      const now = this.ctx.now();
      const fresh = await this.ctx.db.transaction().execute(async (trx) => {
        const workspaceId = state ? await this.workspaceFor(trx, state) : null;
        if (!(await repo.recordEvent(trx, event.id, event.type, workspaceId, now))) return false;
        if (state && workspaceId !== null) await this.apply(trx, workspaceId, state, now);
        return true;
      });
      return { received: true, duplicate: !fresh };
    } catch (err) {
      // The transaction rolled back (the event id with it): Stripe's retry finds nothing half-applied.
      log.error({ err, eventId: event.id, eventType: event.type }, 'stripe webhook processing failed');
      throw appError('PAYMENT_WEBHOOK_FAILED', `Event ${event.id} (${event.type}) could not be processed; it will be retried`);
    }
  }

  /** The subscription an event is about (the workspace comes from its customer: workspaceFor). */
  private subscriptionOf(event: PaymentEvent): string | null {
    const o = event.object;
    if (event.type === 'checkout.session.completed') {
      const subscriptionId = str(o.subscription);
      return o.mode === 'subscription' ? subscriptionId : null;
    }
    if (event.type.startsWith('customer.subscription.')) {
      return str(o.id);
    }
    // Invoices: the subscription moved under parent.subscription_details in API versions from 2025.
    const parent = o.parent as { subscription_details?: { subscription?: unknown } } | null | undefined;
    return str(parent?.subscription_details?.subscription) ?? str(o.subscription);
  }

  /**
   * The workspace a subscription belongs to: only through its customer, which this instance created and recorded
   * before any checkout (issue #28). A client_reference_id or metadata naming a workspace is never enough: anyone
   * with the same Stripe account, or a checkout made elsewhere, could name any workspace. An event about a customer
   * we never created (another product on the same Stripe account) is acknowledged and ignored.
   */
  private async workspaceFor(db: AppContext['db'], state: SubscriptionState): Promise<number | null> {
    return (state.customerId ? await repo.workspaceOfCustomer(db, state.customerId) : undefined) ?? null;
  }

  private async apply(db: AppContext['db'], workspaceId: number, state: SubscriptionState, now: number): Promise<void> {
    const current = await repo.findBilling(db, workspaceId);
    // An ended subscription that is not the one the workspace holds must not replace a live one.
    if (current?.stripe_subscription_id && current.stripe_subscription_id !== state.id && !LIVE.has(state.status) && current.status && LIVE.has(current.status)) return;
    const pastDueSince = state.status === 'past_due' ? (current?.status === 'past_due' && current.past_due_since !== null ? current.past_due_since : now) : null;
    await repo.saveSubscription(
      db,
      workspaceId,
      state.customerId,
      {
        stripe_subscription_id: state.id,
        stripe_price_id: state.priceId,
        status: state.status,
        current_period_end: state.currentPeriodEnd,
        cancel_at_period_end: state.cancelAtPeriodEnd ? 1 : 0,
        past_due_since: pastDueSince,
      },
      now,
    );
  }

  /** The workspace's Stripe customer, created on its first checkout and reused after. */
  private async customerOf(provider: PaymentProvider, workspaceId: number): Promise<string> {
    const billing = await repo.findBilling(this.ctx.db, workspaceId);
    if (billing?.stripe_customer_id) return billing.stripe_customer_id;
    const workspace = await findWorkspace(this.ctx.db, workspaceId);
    // The same key for every first checkout of this workspace: two at once get the same customer back from Stripe.
    const customer = await this.call(() => provider.createCustomer({ workspaceId, name: workspace?.name ?? `Workspace ${workspaceId}`, idempotencyKey: `dam-customer-${this.instanceTag}-${workspaceId}` }));
    return repo.claimCustomer(this.ctx.db, workspaceId, customer.id, this.ctx.now());
  }

  /** Stripe's failures become 502 PAYMENT_PROVIDER_ERROR with Stripe's message (never the key). */
  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw appError('PAYMENT_PROVIDER_ERROR', `Stripe failed: ${(err as Error).message}`);
    }
  }
}
