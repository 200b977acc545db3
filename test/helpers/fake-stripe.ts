import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StripeConfig } from '../../src/config.js';

/**
 * A stand-in for the Stripe API on 127.0.0.1 speaking its wire format: form-encoded requests with
 * bracketed keys (`line_items[0][price]=...`), `Authorization: Bearer sk_...`, `Idempotency-Key`
 * (the same key answers the first answer again), JSON answers and Stripe's error envelope
 * `{error: {type, message, param}}`. Implements the calls the service makes:
 * - POST /v1/customers -> customer
 * - POST /v1/checkout/sessions -> checkout.session (mode, customer, client_reference_id, url, ...)
 * - GET /v1/subscriptions/:id -> subscription (the state tests set with `setSubscription`)
 * - POST /v1/billing_portal/sessions -> billing_portal.session
 * plus `event()` and `sign()`, which build and sign webhook deliveries as Stripe does.
 */
export interface FakeSubscription {
  id: string;
  customer: string;
  status: string;
  price: string;
  current_period_end: number;
  cancel_at_period_end: boolean;
  metadata: Record<string, string>;
}

export interface FakeStripe {
  readonly baseUrl: string;
  readonly secretKey: string;
  readonly webhookSecret: string;
  /** The app's `payments.stripe` config pointing at this fake. */
  config(): StripeConfig;
  /** Every request received: method, path, parsed form body, idempotency key. */
  readonly requests: { method: string; path: string; body: Record<string, unknown>; idempotencyKey: string | undefined }[];
  readonly customers: Map<string, Record<string, unknown>>;
  readonly subscriptions: Map<string, FakeSubscription>;
  /** Creates or changes a subscription as Stripe would hold it. */
  setSubscription(sub: Partial<FakeSubscription> & { id: string; customer: string; price: string }): FakeSubscription;
  /** When set, every API call answers this status with Stripe's api_error envelope. */
  outage: number | null;
  /** A Stripe Event JSON text with `data.object` (what Stripe POSTs to the webhook). */
  event(type: string, object: Record<string, unknown>, options?: { id?: string; created?: number }): { id: string; body: string };
  /** The Stripe-Signature header for a body: `t=<seconds>,v1=HMAC-SHA256(secret, t + "." + body)`. */
  sign(body: string, options?: { timestamp?: number; secret?: string }): string;
  close(): Promise<void>;
}

/** Parses Stripe's form encoding: `a[b][0][c]=v` into nested objects and arrays. */
export function parseForm(text: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const path = key.replace(/\]/g, '').split('[');
    let node: Record<string, unknown> = out;
    path.forEach((part, i) => {
      if (i === path.length - 1) node[part] = value;
      else node = (node[part] ??= {}) as Record<string, unknown>;
    });
  }
  return out;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${randomBytes(7).toString('hex')}` });
  res.end(JSON.stringify(body));
}

const stripeError = (res: ServerResponse, status: number, type: string, message: string, param?: string) =>
  json(res, status, { error: { type, message, ...(param ? { param } : {}) } });

const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

function subscriptionObject(s: FakeSubscription): Record<string, unknown> {
  // API versions from 2025: the period lives on the item.
  return {
    id: s.id,
    object: 'subscription',
    customer: s.customer,
    status: s.status,
    cancel_at_period_end: s.cancel_at_period_end,
    metadata: s.metadata,
    items: {
      object: 'list',
      data: [{ id: `si_${s.id}`, object: 'subscription_item', price: { id: s.price, object: 'price' }, quantity: 1, current_period_end: s.current_period_end }],
    },
  };
}

export async function startFakeStripe(): Promise<FakeStripe> {
  const secretKey = `sk_test_${randomBytes(16).toString('hex')}`;
  const webhookSecret = `whsec_${randomBytes(16).toString('hex')}`;
  const requests: FakeStripe['requests'] = [];
  const customers = new Map<string, Record<string, unknown>>();
  const subscriptions = new Map<string, FakeSubscription>();
  const replays = new Map<string, { status: number; body: unknown }>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const body = req.method === 'POST' ? parseForm(await readBody(req)) : Object.fromEntries(url.searchParams);
    const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
    requests.push({ method: req.method ?? '', path: url.pathname, body, idempotencyKey });
    if (req.headers.authorization !== `Bearer ${secretKey}`) return stripeError(res, 401, 'invalid_request_error', 'Invalid API Key provided');
    if (fake.outage) return stripeError(res, fake.outage, 'api_error', 'Something went wrong on our end');
    const replayKey = idempotencyKey && `${req.method} ${url.pathname} ${idempotencyKey}`;
    if (replayKey && replays.has(replayKey)) {
      const first = replays.get(replayKey)!;
      return json(res, first.status, first.body);
    }
    const answer = (status: number, payload: unknown) => {
      if (replayKey && req.method === 'POST') replays.set(replayKey, { status, body: payload });
      json(res, status, payload);
    };

    if (req.method === 'POST' && url.pathname === '/v1/customers') {
      const customer = { id: newId('cus'), object: 'customer', name: body.name ?? null, metadata: body.metadata ?? {} };
      customers.set(customer.id, customer);
      return answer(200, customer);
    }
    if (req.method === 'POST' && url.pathname === '/v1/checkout/sessions') {
      const items = body.line_items as Record<string, { price?: string }> | undefined;
      if (body.mode !== 'subscription') return stripeError(res, 400, 'invalid_request_error', 'Missing required param: mode.', 'mode');
      if (!items?.['0']?.price) return stripeError(res, 400, 'invalid_request_error', 'Missing required param: line_items.', 'line_items');
      if (typeof body.customer !== 'string' || !customers.has(body.customer)) {
        return stripeError(res, 400, 'invalid_request_error', `No such customer: '${String(body.customer)}'`, 'customer');
      }
      const id = newId('cs_test');
      return answer(200, {
        id,
        object: 'checkout.session',
        mode: body.mode,
        customer: body.customer,
        client_reference_id: body.client_reference_id ?? null,
        success_url: body.success_url,
        cancel_url: body.cancel_url,
        metadata: body.metadata ?? {},
        line_items_price: items['0'].price,
        subscription_data: body.subscription_data ?? null,
        status: 'open',
        url: `https://checkout.stripe.test/c/pay/${id}`,
      });
    }
    if (req.method === 'POST' && url.pathname === '/v1/billing_portal/sessions') {
      if (typeof body.customer !== 'string' || !customers.has(body.customer)) {
        return stripeError(res, 400, 'invalid_request_error', `No such customer: '${String(body.customer)}'`, 'customer');
      }
      const id = newId('bps');
      return answer(200, { id, object: 'billing_portal.session', customer: body.customer, return_url: body.return_url, url: `https://billing.stripe.test/p/session/${id}` });
    }
    const sub = /^\/v1\/subscriptions\/([A-Za-z0-9_]+)$/.exec(url.pathname);
    if (req.method === 'GET' && sub) {
      const found = subscriptions.get(sub[1]!);
      if (!found) return stripeError(res, 404, 'invalid_request_error', `No such subscription: '${sub[1]}'`, 'id');
      return json(res, 200, subscriptionObject(found));
    }
    return stripeError(res, 404, 'invalid_request_error', `Unrecognized request URL (${req.method}: ${url.pathname}).`);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => stripeError(res, 500, 'api_error', String(err)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const fake: FakeStripe = {
    baseUrl,
    secretKey,
    webhookSecret,
    config: () => ({ secretKey, webhookSecret, apiUrl: baseUrl }),
    requests,
    customers,
    subscriptions,
    outage: null,
    setSubscription(sub) {
      const next: FakeSubscription = {
        status: 'active',
        current_period_end: Math.floor(Date.now() / 1000) + 30 * 86_400,
        cancel_at_period_end: false,
        metadata: {},
        ...subscriptions.get(sub.id),
        ...sub,
      };
      subscriptions.set(sub.id, next);
      return next;
    },
    event(type, object, options = {}) {
      const id = options.id ?? newId('evt');
      const event = {
        id,
        object: 'event',
        api_version: '2026-10-28.endive',
        created: options.created ?? Math.floor(Date.now() / 1000),
        livemode: false,
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
        type,
        data: { object },
      };
      return { id, body: JSON.stringify(event, null, 2) };
    },
    sign(body, options = {}) {
      const t = options.timestamp ?? Math.floor(Date.now() / 1000);
      const v1 = createHmac('sha256', options.secret ?? webhookSecret).update(`${t}.${body}`).digest('hex');
      return `t=${t},v1=${v1}`;
    },
    close: () => new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  };
  return fake;
}

/** The subscription object of a fake subscription, as Stripe puts it in customer.subscription.* events. */
export const subscriptionPayload = subscriptionObject;
