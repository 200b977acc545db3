import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox';
import { AppError, appError } from '../errors.js';
import { assertShallow } from '../http/json-body.js';
import { Envelope, ErrorBody, ok } from '../http/schemas.js';
import type { PaymentService } from '../services/payment-service.js';
import {
  CheckoutSchema,
  CreateCheckoutBody,
  PortalBody,
  PlansSchema,
  PortalSchema,
  StripeEventBody,
  SubscriptionQuery,
  SubscriptionSchema,
  WebhookAnswer,
  WebhookHeaders,
} from '../contracts/payments.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The exact bytes of a webhook delivery, which its signature covers (set by the payments scope's JSON parser). */
    rawBody?: Buffer;
  }
}

const DISABLED = 'Without payments enabled on this instance (a Stripe secret key), every payments operation answers 404 PAYMENTS_DISABLED.';

/** Plans and Stripe billing (issue #17, seed 4.6 /payments). */
export const paymentRoutes: FastifyPluginCallbackTypebox<{ payments: PaymentService }> = (app, { payments }, done) => {
  app.post(
    '/payments/create-checkout',
    {
      schema: {
        tags: ['payments'],
        summary: 'Start a Stripe Checkout for a plan (workspace admins)',
        description:
          "Creates a Stripe Checkout Session in subscription mode for the plan's price, for the workspace's Stripe customer " +
          '(created on the first checkout and reused), and answers its id and url: send the browser there. After paying, Stripe ' +
          "returns to the web client's billing page (/settings/{workspaceId}/billing?checkout=success); the plan applies once " +
          "Stripe's webhook confirms the subscription. Repeated requests for the same workspace and plan within the hour answer " +
          'the same session. An unknown plan is 400 (field plan); the free plan, the plan the workspace is on, or any plan while a ' +
          'paid subscription is live (change plans in the billing portal instead) is 409 CONFLICT. Stripe failing is 502 ' +
          'PAYMENT_PROVIDER_ERROR. ' +
          DISABLED,
        body: CreateCheckoutBody,
        response: { 200: Envelope(CheckoutSchema), 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 502: ErrorBody },
      },
    },
    async (req) => ok(await payments.createCheckout(req.caller, req.body)),
  );

  app.post(
    '/payments/portal',
    {
      schema: {
        tags: ['payments'],
        summary: "Open Stripe's billing portal for the workspace (workspace admins)",
        description:
          "Answers the url of a Stripe billing-portal session for the workspace's customer, where card, plan and cancellation " +
          "are managed; it returns to the web client's billing page. A workspace that never went to checkout has no customer: " +
          '409 CONFLICT. ' +
          DISABLED,
        body: PortalBody,
        response: { 200: Envelope(PortalSchema), 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 502: ErrorBody },
      },
    },
    async (req) => ok(await payments.portal(req.caller, req.body)),
  );

  app.get(
    '/payments/subscription',
    {
      schema: {
        tags: ['payments'],
        summary: "The workspace's plan, subscription state, limits and usage (members)",
        description:
          "plan is the plan whose limits apply: the subscription's while its status is active, trialing or past_due, otherwise " +
          'the free plan (a canceled subscription falls back to it: nothing is deleted, but adding beyond its limits is refused). ' +
          'usage is kept exact as files, assets and members are added and removed (trash still counts: it is still stored). ' +
          'Passing a limit is refused up front with 402 QUOTA_EXCEEDED {limit, used, requested}. past_due_until: while the ' +
          'subscription is past_due, when the workspace turns read-only (the grace period, 7 days by default, after it became ' +
          'past_due); read_only: that time has passed, and every write answers 402 SUBSCRIPTION_PAST_DUE until the invoice is ' +
          'paid (checkout and the billing portal keep working). ' +
          DISABLED,
        querystring: SubscriptionQuery,
        response: { 200: Envelope(SubscriptionSchema), 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => ok(await payments.subscription(req.caller, req.query.workspaceId)),
  );

  app.get(
    '/payments/plans',
    {
      schema: {
        tags: ['payments'],
        summary: "The instance's plans (any signed-in user)",
        description:
          "Every plan of the plans file, in its order: id (what create-checkout takes), name, whether it is the free plan, a short " +
          'price text when the plans file gives one, and its limits (null: unlimited). ' +
          DISABLED,
        response: { 200: Envelope(PlansSchema), 401: ErrorBody, 404: ErrorBody },
      },
    },
    () => ok(payments.plansList()),
  );

  app.register(webhookRoute, { payments });
  done();
};

/**
 * A Stripe-Signature header of the wrong form is a signature that does not verify: 400 WEBHOOK_SIGNATURE_INVALID, as a
 * wrong or stale one (issue #38), rather than the VALIDATION_ERROR its schema's pattern would give. The pattern stays in
 * the schema, which documents the header and refuses an absurd one before Stripe's parser sees it. Other parts'
 * failures keep the usual VALIDATION_ERROR naming the field (the error handler reads `validation`, set by Fastify).
 */
function webhookValidationError(_errors: unknown, part: string): Error {
  if (part === 'headers') {
    return appError('WEBHOOK_SIGNATURE_INVALID', 'The Stripe-Signature header is malformed: expected t=TIMESTAMP,v1=SIGNATURE', { field: 'stripe-signature' });
  }
  return new Error(`The request's ${part} is invalid`);
}

/**
 * The webhook in a scope of its own: its signature covers the bytes as sent, so this scope's JSON parser
 * keeps them beside the parsed event. Every other route keeps Fastify's own JSON parser.
 */
const webhookRoute: FastifyPluginCallbackTypebox<{ payments: PaymentService }> = (app, { payments }, done) => {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body: Buffer, parsed) => {
    req.rawBody = body;
    try {
      const text = body.toString('utf8');
      // Issue #28: deep nesting is refused before JSON.parse builds it.
      assertShallow(text);
      parsed(null, body.length === 0 ? undefined : JSON.parse(text));
    } catch (err) {
      parsed(err instanceof AppError ? err : appError('VALIDATION_ERROR', `The body is not valid JSON: ${(err as Error).message}`), undefined);
    }
  });

  app.post(
    '/payments/webhook',
    {
      config: { public: true },
      schema: {
        tags: ['payments'],
        summary: 'Receive Stripe webhook events (no bearer; signed by Stripe)',
        description:
          'The raw body is verified against the Stripe-Signature header with the endpoint secret, allowing 300 seconds of clock ' +
          'difference; a missing, malformed, wrong or stale signature is 400 WEBHOOK_SIGNATURE_INVALID and changes nothing ' +
          '(a body that is not the JSON of an Event is refused before, 400 VALIDATION_ERROR). ' +
          'Each event id is processed once: a redelivery answers 200 with duplicate true and does nothing. Handled: ' +
          'checkout.session.completed, customer.subscription.created/updated/deleted, invoice.paid, invoice.payment_failed; ' +
          'for each the subscription is read again from Stripe and its current state stored, so events arriving out of order ' +
          'never apply an older state. Other event types are acknowledged and ignored. A processing failure answers 500 ' +
          'PAYMENT_WEBHOOK_FAILED with nothing applied, and Stripe delivers the event again. ' +
          DISABLED,
        headers: WebhookHeaders,
        body: StripeEventBody,
        response: { 200: WebhookAnswer, 400: ErrorBody, 404: ErrorBody, 500: ErrorBody },
      },
      schemaErrorFormatter: webhookValidationError,
    },
    async (req) => payments.webhook(req.rawBody ?? Buffer.alloc(0), req.headers['stripe-signature'], req.log),
  );
  done();
};
