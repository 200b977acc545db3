import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { tempDir } from './helpers/databases.js';

/** DAM_PLANS_FILE and DAM_STRIPE_* (issue #17): validated once at start, a bad file stops it naming the problem. */
const base = () => ({ DAM_DATA_DIR: tempDir('dam-config-'), DAM_JWT_SECRET: 'a-secret-that-is-long-enough-0123456789' });

function plansFile(content: unknown): string {
  const file = path.join(tempDir('dam-plans-'), 'plans.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

function refusal(vars: Record<string, string>): string {
  try {
    loadConfig({ ...base(), ...vars });
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(vars)}`);
}

const free = { id: 'free', name: 'Free', limits: { members: 3 } };
const team = { id: 'team', name: 'Team', limits: {}, stripe_price_id: 'price_team' };

describe('payments configuration', () => {
  it('loads the shipped plans file by default, payments off without a Stripe key', () => {
    const config = loadConfig(base());
    expect(config.payments.stripe).toBeNull();
    expect(config.payments.plans.map((p) => p.id)).toEqual(['free', 'team', 'business']);
    expect(config.payments.plans.filter((p) => p.stripe_price_id === undefined)).toHaveLength(1);
  });

  it('reads DAM_PLANS_FILE and the Stripe settings', () => {
    const config = loadConfig({
      ...base(),
      DAM_PLANS_FILE: plansFile({ plans: [free, team] }),
      DAM_STRIPE_SECRET_KEY: 'sk_test_x',
      DAM_STRIPE_WEBHOOK_SECRET: 'whsec_x',
      DAM_STRIPE_API_URL: 'http://127.0.0.1:12111',
    });
    expect(config.payments.plans).toEqual([free, team]);
    expect(config.payments.stripe).toEqual({ secretKey: 'sk_test_x', webhookSecret: 'whsec_x', apiUrl: 'http://127.0.0.1:12111' });
    expect(loadConfig({ ...base(), DAM_STRIPE_SECRET_KEY: 'sk', DAM_STRIPE_WEBHOOK_SECRET: 'wh' }).payments.stripe?.apiUrl).toBe('https://api.stripe.com');
  });

  it('refuses an invalid plans file, naming the problem', () => {
    expect(refusal({ DAM_PLANS_FILE: '/nonexistent/plans.json' })).toMatch(/DAM_PLANS_FILE.*cannot be read.*ENOENT/);
    expect(refusal({ DAM_PLANS_FILE: plansFile('{"plans": [') })).toMatch(/not valid JSON/);
    expect(refusal({ DAM_PLANS_FILE: plansFile({ plans: [team] }) })).toMatch(/exactly one plan must have no stripe_price_id.*found 0/);
    expect(refusal({ DAM_PLANS_FILE: plansFile({ plans: [free, { ...free, id: 'basic' }] }) })).toMatch(/found 2 \(free, basic\)/);
    expect(refusal({ DAM_PLANS_FILE: plansFile({ plans: [free, free] }) })).toMatch(/"free" appears more than once/);
    expect(refusal({ DAM_PLANS_FILE: plansFile({ plans: [free, team, { ...team, id: 'team2' }] }) })).toMatch(/price_team.*more than one plan/);
    expect(refusal({ DAM_PLANS_FILE: plansFile({ plans: [{ ...free, limits: { members: -1 } }] }) })).toMatch(/\/plans\/0\/limits\/members/);
    expect(refusal({ DAM_PLANS_FILE: plansFile({ plans: [{ ...free, limits: { seats: 3 } }] }) })).toMatch(/\/plans\/0\/limits has an unknown member seats/);
    expect(refusal({ DAM_PLANS_FILE: plansFile({ plans: [{ name: 'x', limits: {} }] }) })).toMatch(/\/plans\/0.*id/);
    expect(refusal({ DAM_PLANS_FILE: plansFile({ plans: [] }) })).toMatch(/\/plans/);
  });

  it('refuses a Stripe key without a webhook secret, and an API URL with a path', () => {
    expect(refusal({ DAM_STRIPE_SECRET_KEY: 'sk' })).toMatch(/DAM_STRIPE_WEBHOOK_SECRET is required/);
    expect(refusal({ DAM_STRIPE_SECRET_KEY: 'sk', DAM_STRIPE_WEBHOOK_SECRET: 'wh', DAM_STRIPE_API_URL: 'ftp://x' })).toMatch(/DAM_STRIPE_API_URL/);
    expect(refusal({ DAM_STRIPE_SECRET_KEY: 'sk', DAM_STRIPE_WEBHOOK_SECRET: 'wh', DAM_STRIPE_API_URL: 'http://127.0.0.1:1/v1' })).toMatch(/no path/);
  });
});
