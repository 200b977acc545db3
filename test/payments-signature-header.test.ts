import Stripe from 'stripe';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHIPPED_PLANS, startTestApp, type TestApp } from './helpers/app.js';
import { startFakeStripe, type FakeStripe } from './helpers/fake-stripe.js';

/**
 * Issue #38: a Stripe-Signature header of the wrong form answers WEBHOOK_SIGNATURE_INVALID, as the webhook documents,
 * like a wrong or stale one. The valid header is made by the official SDK's signing helper, as Stripe signs.
 */
describe('webhook Stripe-Signature header of the wrong form', () => {
  let t: TestApp;
  let stripe: FakeStripe;
  const body = JSON.stringify({ id: 'evt_header_form', object: 'event', type: 'customer.created', data: { object: { id: 'cus_1', object: 'customer' } } });

  beforeAll(async () => {
    stripe = await startFakeStripe();
    t = await startTestApp({ config: { payments: { plans: SHIPPED_PLANS, stripe: stripe.config(), graceDays: 7 } } });
  });
  afterAll(async () => {
    await t.close();
    await stripe.close();
  });

  const deliver = (signature: string, payload = body): Promise<LightMyRequestResponse> =>
    t.request({ method: 'POST', url: '/payments/webhook', payload, headers: { 'content-type': 'application/json', 'stripe-signature': signature } });
  const signed = (): string => Stripe.webhooks.generateTestHeaderString({ payload: body, secret: stripe.webhookSecret });

  it.each([
    ['a word', 'not-a-signature'],
    ['empty', ''],
    ['separated by semicolons', () => signed().replace(',', ';')],
    ['with a space after the comma', () => signed().replace(',', ', ')],
    ['with an uppercase scheme', () => signed().replace('v1=', 'V1=')],
    ['with an empty value', 't=1,v1='],
    ['with 17 signatures', () => ['t=1', ...Array.from({ length: 16 }, () => 'v1=ab')].join(',')],
    ['over 2,048 characters', () => `t=1,${Array.from({ length: 5 }, () => `v1=${'a'.repeat(500)}`).join(',')}`],
  ])('refuses one %s with 400 WEBHOOK_SIGNATURE_INVALID naming the header', async (_label, header) => {
    const res = await deliver(typeof header === 'function' ? header() : header);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toEqual({ error: expect.stringContaining('Stripe-Signature') as string, code: 'WEBHOOK_SIGNATURE_INVALID', field: 'stripe-signature' });
  });

  it('accepts the header as the official SDK signs it, once', async () => {
    const res = await deliver(signed());
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ received: true, duplicate: false });
  });

  it('still refuses a body that is not an event as any invalid body, naming the field', async () => {
    const payload = JSON.stringify({ id: 'evt_no_type', data: { object: {} } });
    const res = await deliver(Stripe.webhooks.generateTestHeaderString({ payload, secret: stripe.webhookSecret }), payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'MISSING_PARAMETER', field: 'type' });
  });
});
