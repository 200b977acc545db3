import { Type, type Static } from 'typebox';
import { Id } from '../http/schemas.js';

const strict = { additionalProperties: false };

const PlanId = Type.String({
  minLength: 1,
  maxLength: 64,
  description: "A plan id of this instance's plans file (e.g. team); the free plan cannot be bought",
});

export const CreateCheckoutBody = Type.Object({ workspaceId: Id('Workspace the subscription is for'), plan: PlanId }, strict);
export type CreateCheckoutInput = Static<typeof CreateCheckoutBody>;

export const PortalBody = Type.Object({ workspaceId: Id('Workspace whose billing is managed') }, strict);
export type PortalInput = Static<typeof PortalBody>;

export const SubscriptionQuery = Type.Object({ workspaceId: Id('Workspace asked about') }, strict);

export const CheckoutSchema = Type.Object({
  id: Type.String({ description: 'Stripe Checkout Session id' }),
  url: Type.String({ description: 'Where to send the browser to pay' }),
});

export const PortalSchema = Type.Object({ url: Type.String({ description: "Stripe's billing portal for this workspace's customer" }) });

const Limit = (what: string) => Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: `${what}; null: unlimited` });

export const SubscriptionSchema = Type.Object({
  plan: Type.String({ description: 'Id of the plan whose limits apply' }),
  plan_name: Type.String(),
  status: Type.String({
    description:
      "Stripe's subscription status (active, trialing, past_due, unpaid, canceled, incomplete, incomplete_expired, paused), or none when the workspace never subscribed",
  }),
  current_period_end: Type.Union([Type.Integer(), Type.Null()], { description: 'End of the paid period, Unix seconds; null without a subscription' }),
  cancel_at_period_end: Type.Boolean({ description: 'The subscription ends at current_period_end (canceled in the billing portal)' }),
  limits: Type.Object({ storage_bytes: Limit('Bytes of stored files'), members: Limit('Members'), assets: Limit('Assets') }),
  usage: Type.Object(
    {
      storage_bytes: Type.Integer({ description: 'Bytes of every stored version and rendition, trash included' }),
      members: Type.Integer(),
      assets: Type.Integer({ description: 'Assets, trash included' }),
    },
    { description: 'What the workspace uses now (kept exact as files, assets and members are added and removed)' },
  ),
  read_only: Type.Boolean({
    description: 'The subscription is past_due beyond the grace period: reads and downloads work, every write answers 402 SUBSCRIPTION_PAST_DUE until paid',
  }),
  past_due_until: Type.Union([Type.Integer(), Type.Null()], {
    description: 'While past_due: when the workspace turns (or turned) read-only, Unix seconds; null when not past_due',
  }),
});
export type SubscriptionView = Static<typeof SubscriptionSchema>;

const PlanSchema = Type.Object({
  id: Type.String({ maxLength: 64, description: 'Plan id, as create-checkout takes it' }),
  name: Type.String({ maxLength: 100 }),
  free: Type.Boolean({ description: 'The free plan every workspace starts on (not bought)' }),
  price_label: Type.Union([Type.String({ maxLength: 64 }), Type.Null()], { description: 'Short price text to show, e.g. "EUR 12 / month"; null when the plans file gives none' }),
  limits: Type.Object({ storage_bytes: Limit('Bytes of stored files'), members: Limit('Members'), assets: Limit('Assets') }),
});

export const PlansSchema = Type.Object({ plans: Type.Array(PlanSchema, { maxItems: 100, description: "The instance's plans, in the plans file's order" }) });
export type PlansView = Static<typeof PlansSchema>;

/**
 * The webhook's body as Stripe sends it (an Event object); only id, type and data.object are read, and only
 * after the signature over the raw bytes has been verified.
 */
export const StripeEventBody = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 255, description: 'Event id (evt_...)' }),
    type: Type.String({ minLength: 1, maxLength: 255, description: 'Event type, e.g. customer.subscription.updated' }),
    data: Type.Object({ object: Type.Object({}, { additionalProperties: true }) }, { additionalProperties: true }),
  },
  { additionalProperties: true },
);

export const WebhookHeaders = Type.Object({
  'stripe-signature': Type.Optional(
    Type.String({
      maxLength: 2048,
      // t=<unix seconds>,v1=<hex>[,v1=...][,v0=...]: one signature per active endpoint secret.
      pattern: '^[a-z0-9]{1,8}=[^,]{1,512}(,[a-z0-9]{1,8}=[^,]{1,512}){0,15}$',
      description: 'Stripe-Signature: t=TIMESTAMP,v1=HMAC-SHA256(endpoint secret, TIMESTAMP + "." + raw body) in hex',
    }),
  ),
});

export const WebhookAnswer = Type.Object({
  received: Type.Literal(true),
  duplicate: Type.Boolean({ description: 'The event id was processed before: nothing was done' }),
});
export type WebhookResult = Static<typeof WebhookAnswer>;
