import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHIPPED_PLANS, startTestApp, type TestApp } from './helpers/app.js';
import { dialects } from './helpers/databases.js';
import { addMember, registerUser, type Account } from './helpers/factories.js';
import { startFakeStripe, subscriptionPayload, type FakeStripe } from './helpers/fake-stripe.js';

/** Payments (issue #17, step 1): plans, checkout, portal, webhooks and subscription state, through HTTP. */

interface SubscriptionView {
  plan: string;
  status: string;
  current_period_end: number | null;
  cancel_at_period_end: boolean;
  limits: { storage_bytes: number | null; members: number | null; assets: number | null };
  usage: { storage_bytes: number; members: number; assets: number };
}

const priceOf = (plan: string) => SHIPPED_PLANS.find((p) => p.id === plan)!.stripe_price_id!;

describe.each(dialects)('payments on %s', (dialect) => {
  let t: TestApp;
  let stripe: FakeStripe;

  beforeAll(async () => {
    stripe = await startFakeStripe();
    t = await startTestApp({ dialect, config: { payments: { plans: SHIPPED_PLANS, stripe: stripe.config(), graceDays: 7 } } });
  });
  afterAll(async () => {
    await t.close();
    await stripe.close();
  });

  const checkout = (who: Account, workspaceId: number, plan: string) =>
    t.request({ method: 'POST', url: '/payments/create-checkout', token: who.token, payload: { workspaceId, plan } });
  const subscription = async (who: Account, workspaceId: number): Promise<SubscriptionView> => {
    const res = await t.request({ method: 'GET', url: `/payments/subscription?workspaceId=${workspaceId}`, token: who.token });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ data: SubscriptionView }>().data;
  };
  const deliver = (body: string, signature?: string): Promise<LightMyRequestResponse> =>
    t.request({
      method: 'POST',
      url: '/payments/webhook',
      payload: body,
      headers: { 'content-type': 'application/json', ...(signature === undefined ? {} : { 'stripe-signature': signature }) },
    });
  const send = (type: string, object: Record<string, unknown>, options?: { id?: string }) => {
    const event = stripe.event(type, object, options);
    return deliver(event.body, stripe.sign(event.body));
  };
  const customerOf = (workspaceId: number) =>
    [...stripe.customers.values()].find((c) => (c.metadata as Record<string, string>).workspace_id === String(workspaceId))!.id as string;

  /** Checkout, then Stripe's completion: the workspace subscribes to `plan`. */
  async function subscribe(owner: Account, plan: string): Promise<string> {
    expect((await checkout(owner, owner.workspaceId, plan)).statusCode).toBe(200);
    const customer = customerOf(owner.workspaceId);
    const sub = stripe.setSubscription({ id: `sub_${owner.workspaceId}_${plan}_${Date.now()}`, customer, price: priceOf(plan), metadata: { workspace_id: String(owner.workspaceId) } });
    const res = await send('checkout.session.completed', {
      id: 'cs_test_x',
      object: 'checkout.session',
      mode: 'subscription',
      customer,
      client_reference_id: String(owner.workspaceId),
      subscription: sub.id,
    });
    expect(res.statusCode, res.body).toBe(200);
    return sub.id;
  }

  it('starts every workspace on the free plan, with its limits and counted usage', async () => {
    const owner = await registerUser(t);
    const view = await subscription(owner, owner.workspaceId);
    const free = SHIPPED_PLANS.find((p) => p.stripe_price_id === undefined)!;
    expect(view).toMatchObject({ plan: free.id, status: 'none', current_period_end: null, cancel_at_period_end: false });
    expect(view.limits).toEqual({ storage_bytes: free.limits.storage_bytes ?? null, members: free.limits.members ?? null, assets: free.limits.assets ?? null });
    expect(view.usage).toEqual({ storage_bytes: 0, members: 1, assets: 0 });
  });

  it('creates a checkout session for each paid plan, with one customer per workspace reused', async () => {
    for (const plan of SHIPPED_PLANS.filter((p) => p.stripe_price_id)) {
      const owner = await registerUser(t);
      const before = stripe.requests.length;
      const res = await checkout(owner, owner.workspaceId, plan.id);
      expect(res.statusCode, res.body).toBe(200);
      const data = res.json<{ data: { id: string; url: string } }>().data;
      expect(data.id).toMatch(/^cs_test_/);
      expect(data.url).toMatch(/^https:\/\/checkout\.stripe\.test\//);
      const calls = stripe.requests.slice(before);
      expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(['POST /v1/customers', 'POST /v1/checkout/sessions']);
      const session = calls[1]!;
      expect(session.body).toMatchObject({
        mode: 'subscription',
        customer: customerOf(owner.workspaceId),
        client_reference_id: String(owner.workspaceId),
        line_items: { '0': { price: plan.stripe_price_id, quantity: '1' } },
        subscription_data: { metadata: { workspace_id: String(owner.workspaceId), plan: plan.id } },
      });
      expect(String(session.body.success_url)).toContain(`/settings/${owner.workspaceId}/billing?checkout=success`);
      expect(String(session.body.cancel_url)).toContain(`/settings/${owner.workspaceId}/billing?checkout=canceled`);
      expect(session.idempotencyKey).toBeTruthy();
      // Again: the same customer, no second one; the same session within the hour.
      const again = await checkout(owner, owner.workspaceId, plan.id);
      expect(again.json<{ data: { id: string } }>().data.id).toBe(data.id);
      expect(stripe.requests.slice(before).filter((c) => c.path === '/v1/customers')).toHaveLength(1);
    }
  });

  it('refuses the free plan and the current plan (409) and an unknown plan (400)', async () => {
    const owner = await registerUser(t);
    const free = await checkout(owner, owner.workspaceId, 'free');
    expect(free.statusCode).toBe(409);
    expect(free.json()).toMatchObject({ code: 'CONFLICT' });
    const unknown = await checkout(owner, owner.workspaceId, 'platinum');
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'plan' });
    expect(unknown.json<{ error: string }>().error).toContain('platinum');
    await subscribe(owner, 'team');
    expect((await subscription(owner, owner.workspaceId)).plan).toBe('team');
    const current = await checkout(owner, owner.workspaceId, 'team');
    expect(current.statusCode).toBe(409);
    expect(current.json<{ error: string }>().error).toContain('already on plan "team"');
    // A second subscription would bill twice: another plan goes through the portal.
    expect((await checkout(owner, owner.workspaceId, 'business')).statusCode).toBe(409);
  });

  it('applies checkout.session.completed and each customer.subscription event', async () => {
    const owner = await registerUser(t);
    const subId = await subscribe(owner, 'team');
    const customer = customerOf(owner.workspaceId);
    let view = await subscription(owner, owner.workspaceId);
    const periodEnd = stripe.subscriptions.get(subId)!.current_period_end;
    expect(view).toMatchObject({ plan: 'team', status: 'active', current_period_end: periodEnd, cancel_at_period_end: false });

    // created: a subscription made elsewhere (dashboard) for this customer.
    const created = stripe.setSubscription({ id: `${subId}_b`, customer, price: priceOf('business') });
    expect((await send('customer.subscription.created', subscriptionPayload(created))).statusCode).toBe(200);
    expect((await subscription(owner, owner.workspaceId)).plan).toBe('business');

    const updated = stripe.setSubscription({ id: created.id, customer, price: priceOf('business'), cancel_at_period_end: true });
    expect((await send('customer.subscription.updated', subscriptionPayload(updated))).statusCode).toBe(200);
    view = await subscription(owner, owner.workspaceId);
    expect(view).toMatchObject({ plan: 'business', status: 'active', cancel_at_period_end: true });

    const deleted = stripe.setSubscription({ id: created.id, customer, price: priceOf('business'), status: 'canceled' });
    expect((await send('customer.subscription.deleted', subscriptionPayload(deleted))).statusCode).toBe(200);
    view = await subscription(owner, owner.workspaceId);
    expect(view).toMatchObject({ plan: 'free', status: 'canceled' });
    // Nothing is deleted, and the workspace may subscribe again.
    expect((await checkout(owner, owner.workspaceId, 'team')).statusCode).toBe(200);
  });

  it('does not let the end of an older subscription replace the live one', async () => {
    const owner = await registerUser(t);
    const first = await subscribe(owner, 'team');
    const customer = customerOf(owner.workspaceId);
    const second = stripe.setSubscription({ id: `${first}_new`, customer, price: priceOf('business') });
    expect((await send('customer.subscription.created', subscriptionPayload(second))).statusCode).toBe(200);
    const ended = stripe.setSubscription({ id: first, customer, price: priceOf('team'), status: 'canceled' });
    expect((await send('customer.subscription.deleted', subscriptionPayload(ended))).statusCode).toBe(200);
    expect(await subscription(owner, owner.workspaceId)).toMatchObject({ plan: 'business', status: 'active' });
  });

  it('applies invoice.payment_failed (past_due keeps the plan) and invoice.paid', async () => {
    const owner = await registerUser(t);
    const subId = await subscribe(owner, 'team');
    const customer = customerOf(owner.workspaceId);
    stripe.setSubscription({ id: subId, customer, price: priceOf('team'), status: 'past_due' });
    const invoice = (id: string) => ({ id, object: 'invoice', customer, parent: { type: 'subscription_details', subscription_details: { subscription: subId } } });
    expect((await send('invoice.payment_failed', invoice('in_1'))).statusCode).toBe(200);
    expect(await subscription(owner, owner.workspaceId)).toMatchObject({ plan: 'team', status: 'past_due' });
    const row = await t.database.db.selectFrom('workspace_billing').select('past_due_since').where('workspace_id', '=', owner.workspaceId).executeTakeFirstOrThrow();
    expect(row.past_due_since).not.toBeNull();

    stripe.setSubscription({ id: subId, customer, price: priceOf('team'), status: 'active' });
    // The older API shape (invoice.subscription) is understood too.
    expect((await send('invoice.paid', { id: 'in_2', object: 'invoice', customer, subscription: subId })).statusCode).toBe(200);
    expect(await subscription(owner, owner.workspaceId)).toMatchObject({ plan: 'team', status: 'active' });
    const after = await t.database.db.selectFrom('workspace_billing').select('past_due_since').where('workspace_id', '=', owner.workspaceId).executeTakeFirstOrThrow();
    expect(after.past_due_since).toBeNull();
  });

  it('acknowledges other event types and events of customers it does not know, changing nothing', async () => {
    const res = await send('customer.created', { id: 'cus_other', object: 'customer' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ received: true, duplicate: false });
    const stranger = stripe.setSubscription({ id: 'sub_stranger', customer: 'cus_stranger', price: priceOf('team') });
    expect((await send('customer.subscription.updated', subscriptionPayload(stranger))).statusCode).toBe(200);
    const rows = await t.database.db.selectFrom('workspace_billing').select('workspace_id').where('stripe_subscription_id', '=', 'sub_stranger').execute();
    expect(rows).toEqual([]);
  });

  it('never applies an event to a workspace only because its client_reference_id or metadata names it (issue #28)', async () => {
    const victim = await registerUser(t);
    // A subscription of a customer this instance never created, naming the victim's workspace every way it can.
    const forged = stripe.setSubscription({ id: 'sub_forged', customer: 'cus_forged', price: priceOf('team'), metadata: { workspace_id: String(victim.workspaceId) } });
    const checkout = await send('checkout.session.completed', {
      id: 'cs_forged', object: 'checkout.session', mode: 'subscription', customer: 'cus_forged', subscription: forged.id,
      client_reference_id: String(victim.workspaceId), metadata: { workspace_id: String(victim.workspaceId), plan: 'team' },
    });
    expect(checkout.statusCode).toBe(200);
    expect((await send('customer.subscription.updated', subscriptionPayload(forged))).statusCode).toBe(200);
    expect((await subscription(victim, victim.workspaceId)).plan).toBe('free');
    const rows = await t.database.db.selectFrom('workspace_billing').select('workspace_id').where('stripe_subscription_id', '=', 'sub_forged').execute();
    expect(rows).toEqual([]);
  });

  it('refuses a missing, malformed, wrong or stale signature with 400 and changes nothing', async () => {
    const owner = await registerUser(t);
    const subId = await subscribe(owner, 'team');
    const customer = customerOf(owner.workspaceId);
    const canceled = stripe.setSubscription({ id: subId, customer, price: priceOf('team'), status: 'canceled' });
    const event = stripe.event('customer.subscription.deleted', subscriptionPayload(canceled));
    const now = Math.floor(Date.now() / 1000);
    const cases: [string, string | undefined][] = [
      ['missing', undefined],
      ['malformed', 'not-a-signature'],
      ['without v1', `t=${now}`],
      ['wrong secret', stripe.sign(event.body, { secret: 'whsec_wrong' })],
      ['stale (301 s old)', stripe.sign(event.body, { timestamp: now - 301 })],
      // Issue #28: the tolerance applies both ways; Stripe's SDK alone accepted an hour ahead.
      ['from the future (3,600 s ahead)', stripe.sign(event.body, { timestamp: now + 3600 })],
      ['from the future (301 s ahead)', stripe.sign(event.body, { timestamp: now + 301 })],
      ['for another body', stripe.sign(event.body.replace('canceled', 'active'))],
    ];
    for (const [label, signature] of cases) {
      const res = await deliver(event.body, signature);
      expect(res.statusCode, `${label}: ${res.body}`).toBe(400);
      expect(res.json<{ code: string }>().code, label).toBe('WEBHOOK_SIGNATURE_INVALID');
    }
    // The body re-serialised (same JSON, other bytes) does not verify either: the raw bytes are signed.
    const reserialised = JSON.stringify(JSON.parse(event.body));
    expect((await deliver(reserialised, stripe.sign(event.body))).statusCode).toBe(400);
    expect((await subscription(owner, owner.workspaceId)).status).toBe('active');
    // Within the tolerance it verifies.
    expect((await deliver(event.body, stripe.sign(event.body, { timestamp: now - 200 }))).statusCode).toBe(200);
    expect((await subscription(owner, owner.workspaceId)).status).toBe('canceled');
  });

  it('processes a redelivered event once', async () => {
    const owner = await registerUser(t);
    const subId = await subscribe(owner, 'team');
    const customer = customerOf(owner.workspaceId);
    const sub = stripe.setSubscription({ id: subId, customer, price: priceOf('team'), cancel_at_period_end: true });
    const event = stripe.event('customer.subscription.updated', subscriptionPayload(sub));
    const first = await deliver(event.body, stripe.sign(event.body));
    expect(first.json()).toEqual({ received: true, duplicate: false });
    const reads = stripe.requests.filter((r) => r.path === `/v1/subscriptions/${subId}`).length;
    const again = await deliver(event.body, stripe.sign(event.body));
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ received: true, duplicate: true });
    // Nothing done the second time: not even a read from Stripe.
    expect(stripe.requests.filter((r) => r.path === `/v1/subscriptions/${subId}`)).toHaveLength(reads);
  });

  it('never applies an older state from updated events arriving out of order', async () => {
    const owner = await registerUser(t);
    const subId = await subscribe(owner, 'team');
    const customer = customerOf(owner.workspaceId);
    const t0 = Math.floor(Date.now() / 1000);
    const older = stripe.event('customer.subscription.updated', subscriptionPayload(stripe.setSubscription({ id: subId, customer, price: priceOf('team'), status: 'past_due' })), { created: t0 - 10 });
    const newer = stripe.event('customer.subscription.updated', subscriptionPayload(stripe.setSubscription({ id: subId, customer, price: priceOf('business'), status: 'active' })), { created: t0 });
    // Stripe holds the newer state; the newer event arrives first, the older one after it.
    expect((await deliver(newer.body, stripe.sign(newer.body))).statusCode).toBe(200);
    expect((await deliver(older.body, stripe.sign(older.body))).statusCode).toBe(200);
    expect(await subscription(owner, owner.workspaceId)).toMatchObject({ plan: 'business', status: 'active' });
  });

  it('answers 500 when processing fails, applies nothing, and processes the retry', async () => {
    const owner = await registerUser(t);
    const subId = await subscribe(owner, 'team');
    const customer = customerOf(owner.workspaceId);
    const sub = stripe.setSubscription({ id: subId, customer, price: priceOf('team'), status: 'canceled' });
    const event = stripe.event('customer.subscription.deleted', subscriptionPayload(sub));
    stripe.outage = 500;
    try {
      const failed = await deliver(event.body, stripe.sign(event.body));
      expect(failed.statusCode).toBe(500);
      expect(failed.json()).toMatchObject({ code: 'PAYMENT_WEBHOOK_FAILED' });
    } finally {
      stripe.outage = null;
    }
    expect((await subscription(owner, owner.workspaceId)).status).toBe('active');
    const retry = await deliver(event.body, stripe.sign(event.body));
    expect(retry.json()).toEqual({ received: true, duplicate: false });
    expect((await subscription(owner, owner.workspaceId)).status).toBe('canceled');
  });

  it('opens the billing portal for admins of a workspace with a customer', async () => {
    const owner = await registerUser(t);
    const none = await t.request({ method: 'POST', url: '/payments/portal', token: owner.token, payload: { workspaceId: owner.workspaceId } });
    expect(none.statusCode).toBe(409);
    await subscribe(owner, 'team');
    const res = await t.request({ method: 'POST', url: '/payments/portal', token: owner.token, payload: { workspaceId: owner.workspaceId } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<{ data: { url: string } }>().data.url).toMatch(/^https:\/\/billing\.stripe\.test\//);
    const call = stripe.requests.filter((r) => r.path === '/v1/billing_portal/sessions').at(-1)!;
    expect(call.body).toMatchObject({ customer: customerOf(owner.workspaceId) });
    expect(String(call.body.return_url)).toContain(`/settings/${owner.workspaceId}/billing`);
  });

  it('lets admins buy and open the portal, members read, and keeps workspaces apart', async () => {
    const owner = await registerUser(t);
    const manager = await registerUser(t);
    const viewer = await registerUser(t);
    const stranger = await registerUser(t);
    await addMember(t, owner, owner.workspaceId, manager, 'manager');
    await addMember(t, owner, owner.workspaceId, viewer, 'viewer');
    for (const who of [manager, viewer]) {
      expect((await checkout(who, owner.workspaceId, 'team')).statusCode).toBe(403);
      const portal = await t.request({ method: 'POST', url: '/payments/portal', token: who.token, payload: { workspaceId: owner.workspaceId } });
      expect(portal.statusCode).toBe(403);
      expect((await subscription(who, owner.workspaceId)).usage.members).toBe(3);
    }
    expect((await checkout(stranger, owner.workspaceId, 'team')).statusCode).toBe(404);
    const portal = await t.request({ method: 'POST', url: '/payments/portal', token: stranger.token, payload: { workspaceId: owner.workspaceId } });
    expect(portal.statusCode).toBe(404);
    const read = await t.request({ method: 'GET', url: `/payments/subscription?workspaceId=${owner.workspaceId}`, token: stranger.token });
    expect(read.statusCode).toBe(404);
    // A subscription of one workspace does not touch another.
    await subscribe(owner, 'business');
    expect((await subscription(stranger, stranger.workspaceId)).plan).toBe('free');
    expect((await t.request({ method: 'GET', url: `/payments/subscription?workspaceId=${owner.workspaceId}` })).statusCode).toBe(401);
  });

  it('answers 502 when Stripe fails during checkout', async () => {
    const owner = await registerUser(t);
    stripe.outage = 500;
    try {
      const res = await checkout(owner, owner.workspaceId, 'team');
      expect(res.statusCode).toBe(502);
      expect(res.json()).toMatchObject({ code: 'PAYMENT_PROVIDER_ERROR' });
      expect(res.body).not.toContain(stripe.secretKey);
    } finally {
      stripe.outage = null;
    }
  });
});

describe('payments off (no Stripe key)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('answers 404 PAYMENTS_DISABLED on every payments operation', async () => {
    const owner = await registerUser(t);
    const answers = [
      await t.request({ method: 'POST', url: '/payments/create-checkout', token: owner.token, payload: { workspaceId: owner.workspaceId, plan: 'team' } }),
      await t.request({ method: 'POST', url: '/payments/portal', token: owner.token, payload: { workspaceId: owner.workspaceId } }),
      await t.request({ method: 'GET', url: `/payments/subscription?workspaceId=${owner.workspaceId}`, token: owner.token }),
      await t.request({ method: 'POST', url: '/payments/webhook', payload: { id: 'evt_1', type: 'invoice.paid', data: { object: {} } }, headers: { 'stripe-signature': 't=1,v1=ab' } }),
    ];
    for (const res of answers) {
      expect(res.statusCode, res.body).toBe(404);
      expect(res.json()).toMatchObject({ code: 'PAYMENTS_DISABLED' });
    }
  });
});
