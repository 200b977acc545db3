import { ApiError } from '../api/http';
import type { LimitKind, Limits, QuotaDetails, Subscription } from '../api/payments';
import { translate } from '../i18n';
import { formatBytes, formatDate, formatNumber } from '../util/format';

/** What the Billing tab, the near-limit banner and a refused upload say about plans and limits (issue #17). */

/** A limit counts as near from this share of it on (the banner and the amber bars). */
export const NEAR_LIMIT = 0.9;

export const LIMIT_KINDS: readonly LimitKind[] = ['storage_bytes', 'members', 'assets'];

export const limitLabel = (kind: LimitKind) => translate(`billing.kinds.${kind}`);

/** An amount of a kind: bytes in human units, counts with grouping. */
export function amount(kind: LimitKind, n: number): string {
  return kind === 'storage_bytes' ? formatBytes(n) : formatNumber(n);
}

/** A plan's limit as a card lists it: "5 GB storage", "3 members", "Unlimited assets". */
export function limitLine(kind: LimitKind, limits: Limits): string {
  const limit = limits[kind];
  return limit === null ? translate(`billing.unlimited.${kind}`) : translate(`billing.limit.${kind}`, { amount: amount(kind, limit) }, limit);
}

export type Level = 'ok' | 'near' | 'full';

export interface UsageRow {
  kind: LimitKind;
  label: string;
  used: number;
  limit: number | null;
  /** used / limit (may pass 1 after a downgrade); null when unlimited. */
  share: number | null;
  level: Level;
  /** "1.2 GB of 5 GB", "2 of 3", "12 (unlimited)". */
  text: string;
}

function levelOf(used: number, limit: number | null): Level {
  if (limit === null) return 'ok';
  if (used >= limit) return 'full';
  return used >= limit * NEAR_LIMIT ? 'near' : 'ok';
}

export function usageRows(sub: Pick<Subscription, 'usage' | 'limits'>): UsageRow[] {
  return LIMIT_KINDS.map((kind) => {
    const used = sub.usage[kind];
    const limit = sub.limits[kind];
    return {
      kind,
      label: limitLabel(kind),
      used,
      limit,
      share: limit === null ? null : limit === 0 ? 1 : used / limit,
      level: levelOf(used, limit),
      text:
        limit === null
          ? translate('billing.usage.unlimited', { used: amount(kind, used) })
          : translate('billing.usage.of', { used: amount(kind, used), limit: amount(kind, limit) }),
    };
  });
}

const LIVE = new Set(['active', 'trialing', 'past_due']);

/** A paid subscription runs: plans are changed in Stripe's billing portal, not through a new checkout. */
export const hasLiveSubscription = (sub: Subscription) => LIVE.has(sub.status);

const STATUSES = new Set(['none', 'active', 'trialing', 'past_due', 'unpaid', 'canceled', 'incomplete', 'incomplete_expired', 'paused']);

export const statusLabel = (sub: Subscription) =>
  sub.read_only ? translate('billing.status.readOnly') : STATUSES.has(sub.status) ? translate(`billing.status.${sub.status}`) : sub.status;

/** Sentences about the subscription's state beyond its plan: renewal, cancellation, overdue payment. */
export function statusLines(sub: Subscription): string[] {
  const lines: string[] = [];
  if (sub.read_only) {
    lines.push(sub.past_due_until ? translate('billing.lines.readOnlySince', { date: formatDate(sub.past_due_until) }) : translate('billing.lines.readOnly'));
  } else if (sub.status === 'past_due') {
    lines.push(sub.past_due_until ? translate('billing.lines.pastDueUntil', { date: formatDate(sub.past_due_until) }) : translate('billing.lines.pastDue'));
  }
  if (sub.current_period_end && LIVE.has(sub.status)) {
    const date = formatDate(sub.current_period_end);
    lines.push(sub.cancel_at_period_end ? translate('billing.lines.ends', { date }) : translate('billing.lines.renews', { date }));
  }
  if (sub.status === 'canceled') lines.push(translate('billing.lines.canceled'));
  return lines;
}

export interface Attention {
  level: 'warning' | 'error';
  text: string;
}

/** What the app shell's banner says about a workspace, or null when all is well (issue #17): one sentence per concern. */
export function attention(sub: Subscription): Attention | null {
  if (sub.read_only) {
    return {
      level: 'error',
      text: sub.past_due_until ? translate('billing.banner.readOnlySince', { date: formatDate(sub.past_due_until) }) : translate('billing.banner.readOnly'),
    };
  }
  // Limits reached first: they already stop something.
  const rows = usageRows(sub);
  const sentences = [
    ...rows.filter((r) => r.level === 'full').map((r) => translate(`billing.banner.full.${r.kind}`, { usage: r.text })),
    ...rows.filter((r) => r.level === 'near').map((r) => translate(`billing.banner.near.${r.kind}`, { usage: r.text, percent: formatNumber(Math.floor((r.share ?? 0) * 100)) })),
  ];
  const level: Attention['level'] = rows.some((r) => r.level === 'full') ? 'error' : 'warning';
  const overdue =
    sub.status === 'past_due'
      ? sub.past_due_until
        ? translate('billing.banner.overdueUntil', { date: formatDate(sub.past_due_until) })
        : translate('billing.banner.overdue')
      : null;
  if (!sentences.length) return overdue ? { level: 'warning', text: overdue } : null;
  return { level, text: [overdue, ...sentences].filter(Boolean).join(' ') };
}

/** The billing reason of a refused write (402), or null for any other failure. */
export function billingFailure(err: unknown): { code: 'QUOTA_EXCEEDED' | 'SUBSCRIPTION_PAST_DUE'; quota: QuotaDetails | null } | null {
  if (!(err instanceof ApiError) || err.status !== 402) return null;
  if (err.code === 'SUBSCRIPTION_PAST_DUE') return { code: 'SUBSCRIPTION_PAST_DUE', quota: null };
  if (err.code !== 'QUOTA_EXCEEDED') return null;
  const { limit, used, requested } = err.details;
  const known = typeof limit === 'string' && (LIMIT_KINDS as readonly string[]).includes(limit) && typeof used === 'number' && typeof requested === 'number';
  return { code: 'QUOTA_EXCEEDED', quota: known ? { limit: limit as LimitKind, used, requested } : null };
}

/** Which limit a QUOTA_EXCEEDED names, in words: "Over the plan's storage limit: 4.9 GB used, this file needs 200 MB." */
export function quotaLine(quota: QuotaDetails): string {
  const kind = quota.limit;
  return translate(`billing.quota.${kind}`, { used: amount(kind, quota.used), requested: amount(kind, quota.requested) });
}
