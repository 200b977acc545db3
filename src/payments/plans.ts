import { readFileSync } from 'node:fs';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';

/**
 * Plans (issue #17): read once at start from DAM_PLANS_FILE, validated here. A limit that is absent
 * means unlimited; the one plan without stripe_price_id is the free plan every workspace starts on.
 */
const Limit = (description: string) => Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description }));

export const PlanLimitsSchema = Type.Object(
  {
    storage_bytes: Limit('Bytes of stored files (versions and their renditions); absent: unlimited'),
    members: Limit('Members of the workspace; absent: unlimited'),
    assets: Limit('Assets of the workspace; absent: unlimited'),
  },
  { additionalProperties: false },
);

export const PlanSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z0-9][a-z0-9_-]*$', description: 'Stable plan id (lower-case letters, digits, - and _)' }),
    name: Type.String({ minLength: 1, maxLength: 100, description: 'Name shown to customers' }),
    limits: PlanLimitsSchema,
    price_label: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Short price text shown to customers, e.g. "EUR 12 / month"' })),
    stripe_price_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Stripe recurring price; absent: the free plan' })),
  },
  { additionalProperties: false },
);

const PlansFileSchema = Type.Object({ plans: Type.Array(PlanSchema, { minItems: 1, maxItems: 100 }) }, { additionalProperties: false });

export type Plan = Static<typeof PlanSchema>;
export type PlanLimits = Static<typeof PlanLimitsSchema>;

/** Thrown with a message naming the file and the problem; config.ts turns it into a ConfigError. */
export class PlansFileError extends Error {}

export function parsePlans(text: string, file: string): Plan[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new PlansFileError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
  const errors = Value.Errors(PlansFileSchema, data);
  if (errors.length > 0) {
    // The most specific problem (deepest path) names the member to fix; "schema is false" (an unknown
    // member) says less than its sibling additionalProperties error, which names the member.
    const first = errors.filter((e) => e.keyword !== 'boolean').sort((a, b) => b.instancePath.length - a.instancePath.length)[0] ?? errors[0]!;
    const unknown = (first.params as { additionalProperties?: unknown }).additionalProperties;
    const message = Array.isArray(unknown) ? `has an unknown member ${unknown.join(', ')}` : first.message;
    throw new PlansFileError(`${file}: ${first.instancePath || '(top level)'} ${message}`);
  }
  const plans = (data as Static<typeof PlansFileSchema>).plans;
  const seen = new Set<string>();
  const prices = new Set<string>();
  for (const plan of plans) {
    if (seen.has(plan.id)) throw new PlansFileError(`${file}: plan id "${plan.id}" appears more than once`);
    seen.add(plan.id);
    if (plan.stripe_price_id !== undefined) {
      if (prices.has(plan.stripe_price_id)) throw new PlansFileError(`${file}: stripe_price_id "${plan.stripe_price_id}" is used by more than one plan`);
      prices.add(plan.stripe_price_id);
    }
  }
  const free = plans.filter((p) => p.stripe_price_id === undefined);
  if (free.length !== 1) {
    throw new PlansFileError(`${file}: exactly one plan must have no stripe_price_id (the free plan), found ${free.length}${free.length ? ` (${free.map((p) => p.id).join(', ')})` : ''}`);
  }
  return plans.map((p) => Object.freeze({ ...p, limits: Object.freeze({ ...p.limits }) }));
}

export function loadPlansFile(file: string): Plan[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new PlansFileError(`DAM_PLANS_FILE ${file} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return parsePlans(text, file);
}

export function freePlan(plans: readonly Plan[]): Plan {
  return plans.find((p) => p.stripe_price_id === undefined)!;
}

/** Statuses under which the subscription's plan applies; any other (canceled, unpaid, incomplete...) falls back to the free plan. */
export const LIVE_STATUSES: ReadonlySet<string> = new Set(['active', 'trialing', 'past_due']);

/** The plan whose limits apply to a billing state: the subscription's while it is live, otherwise the free plan. */
export function planInEffect(plans: readonly Plan[], billing: { status: string | null; stripe_price_id: string | null } | undefined): Plan {
  if (!billing?.status || !LIVE_STATUSES.has(billing.status)) return freePlan(plans);
  return plans.find((p) => p.stripe_price_id !== undefined && p.stripe_price_id === billing.stripe_price_id) ?? freePlan(plans);
}
