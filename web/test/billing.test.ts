import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../src/api/http';
import type { Plan, Subscription } from '../src/api/payments';
import { billing, loadPlans, loadSubscription, resetBilling } from '../src/billing/store';
import { attention, billingFailure, limitLine, quotaLine, statusLines, usageRows } from '../src/billing/words';
import { session } from '../src/stores/session';

/** Issue #17 in the web client: what the Billing tab, the banner and a refused upload say, and when the client asks. */

function sub(overrides: Partial<Subscription> = {}): Subscription {
  return {
    plan: 'free',
    plan_name: 'Free',
    status: 'none',
    current_period_end: null,
    cancel_at_period_end: false,
    limits: { storage_bytes: 1_000_000, members: 3, assets: 100 },
    usage: { storage_bytes: 1000, members: 1, assets: 2 },
    read_only: false,
    past_due_until: null,
    ...overrides,
  };
}

describe('billing words', () => {
  it('describes usage against limits, near and full, and unlimited', () => {
    const rows = usageRows(sub({ limits: { storage_bytes: 1_000_000, members: 3, assets: null }, usage: { storage_bytes: 950_000, members: 3, assets: 7 } }));
    expect(rows.map((r) => [r.kind, r.level, r.text])).toEqual([
      ['storage_bytes', 'near', '928 kB of 977 kB'],
      ['members', 'full', '3 of 3'],
      ['assets', 'ok', '7 (unlimited)'],
    ]);
    expect(rows[2]!.share).toBeNull();
    expect(limitLine('assets', { storage_bytes: null, members: 3, assets: 1000 })).toBe('1,000 assets');
    expect(limitLine('storage_bytes', { storage_bytes: null, members: 3, assets: 1000 })).toBe('Unlimited storage');
  });

  it('has nothing to say below 90 %, and names each limit near or reached', () => {
    expect(attention(sub({ usage: { storage_bytes: 899_999, members: 1, assets: 2 } }))).toBeNull();
    const near = attention(sub({ usage: { storage_bytes: 900_000, members: 1, assets: 2 } }))!;
    expect(near.level).toBe('warning');
    expect(near.text).toBe('This workspace uses 90 % of its storage limit (879 kB of 977 kB).');
    const full = attention(sub({ usage: { storage_bytes: 900_000, members: 3, assets: 2 } }))!;
    expect(full.level).toBe('error');
    expect(full.text).toBe('This workspace has reached its members limit (3 of 3): no more members can be added. This workspace uses 90 % of its storage limit (879 kB of 977 kB).');
  });

  it('warns of an overdue payment and of a read-only workspace', () => {
    const until = Math.floor(Date.UTC(2026, 11, 2, 12) / 1000);
    const overdue = attention(sub({ status: 'past_due', past_due_until: until }))!;
    expect(overdue.level).toBe('warning');
    expect(overdue.text).toMatch(/^A payment for this workspace failed: unless it is paid by .*2026.*, the workspace becomes read-only\.$/);
    const readOnly = attention(sub({ status: 'past_due', read_only: true, past_due_until: until }))!;
    expect(readOnly.level).toBe('error');
    expect(readOnly.text).toContain('is read-only since');
    expect(statusLines(sub({ status: 'active', current_period_end: until, cancel_at_period_end: true }))[0]).toMatch(/^The subscription ends on .*free plan's limits/);
  });

  it("reads a 402's reason, and only a 402's", () => {
    const quota = new ApiError('too big', 402, 'QUOTA_EXCEEDED', undefined, { limit: 'storage_bytes', used: 900_000, requested: 204_800 });
    expect(billingFailure(quota)).toEqual({ code: 'QUOTA_EXCEEDED', quota: { limit: 'storage_bytes', used: 900_000, requested: 204_800 } });
    expect(quotaLine(billingFailure(quota)!.quota!)).toBe("Over the plan's storage limit: 879 kB used, this file needs 200 kB.");
    expect(quotaLine({ limit: 'assets', used: 100, requested: 1 })).toBe("Over the plan's assets limit: 100 used, 1 more asked for.");
    expect(billingFailure(new ApiError('late', 402, 'SUBSCRIPTION_PAST_DUE'))).toEqual({ code: 'SUBSCRIPTION_PAST_DUE', quota: null });
    expect(billingFailure(new ApiError('odd', 402, 'QUOTA_EXCEEDED', undefined, { limit: 'bananas' }))).toEqual({ code: 'QUOTA_EXCEEDED', quota: null });
    expect(billingFailure(new ApiError('no', 403, 'FORBIDDEN'))).toBeNull();
    expect(billingFailure(new Error('x'))).toBeNull();
  });
});

describe('billing store', () => {
  const plans: Plan[] = [{ id: 'free', name: 'Free', free: true, price_label: null, limits: { storage_bytes: 10, members: null, assets: null } }];
  beforeEach(() => {
    session.token = 'token';
    session.user = { id: 1, name: 'A', email: 'a@example.test' };
  });
  afterEach(() => {
    resetBilling();
    session.token = null;
    session.user = null;
  });

  it('asks once per workspace, again for another, and when forced', async () => {
    const api = { plans: vi.fn(async () => ({ plans })), subscription: vi.fn(async (id: number) => sub({ plan_name: `ws ${id}` })) };
    resetBilling(api);
    await Promise.all([loadSubscription(1), loadSubscription(1)]);
    await loadSubscription(1);
    expect(api.subscription).toHaveBeenCalledTimes(1);
    expect(billing).toMatchObject({ enabled: true, workspaceId: 1 });
    await loadSubscription(2);
    expect(billing.subscription?.plan_name).toBe('ws 2');
    await loadSubscription(2, { force: true });
    expect(api.subscription).toHaveBeenCalledTimes(3);
  });

  it('remembers that payments are off: one 404, then no more requests', async () => {
    const off = () => Promise.reject(new ApiError('Payments are not enabled', 404, 'PAYMENTS_DISABLED'));
    const api = { plans: vi.fn(off), subscription: vi.fn(off) };
    resetBilling(api);
    expect(await loadSubscription(1)).toBeNull();
    expect(billing.enabled).toBe(false);
    expect(await loadSubscription(2)).toBeNull();
    expect(await loadPlans()).toBeNull();
    expect(api.subscription).toHaveBeenCalledTimes(1);
    expect(api.plans).not.toHaveBeenCalled();
  });

  it('passes other failures on, without deciding payments are off', async () => {
    const api = { plans: vi.fn(async () => ({ plans })), subscription: vi.fn(() => Promise.reject(new ApiError('Not a member', 404, 'NOT_FOUND'))) };
    resetBilling(api);
    await expect(loadSubscription(9)).rejects.toThrow('Not a member');
    expect(billing.enabled).toBeNull();
    expect(await loadPlans()).toEqual(plans);
  });
});
