import { ApiError } from '../api/http';
import type { LimitKind, Limits, QuotaDetails, Subscription } from '../api/payments';
import { formatBytes, formatDate, formatNumber } from '../util/format';

/** What the Billing tab, the near-limit banner and a refused upload say about plans and limits (issue #17). */

/** A limit counts as near from this share of it on (the banner and the amber bars). */
export const NEAR_LIMIT = 0.9;

export const LIMIT_KINDS: readonly LimitKind[] = ['storage_bytes', 'members', 'assets'];

const NOUN: Record<LimitKind, string> = { storage_bytes: 'storage', members: 'members', assets: 'assets' };
const LABEL: Record<LimitKind, string> = { storage_bytes: 'Storage', members: 'Members', assets: 'Assets' };
/** What stops working at a limit. */
const BLOCKS: Record<LimitKind, string> = {
  storage_bytes: 'uploads are refused',
  members: 'no more members can be added',
  assets: 'new assets are refused',
};

export const limitLabel = (kind: LimitKind) => LABEL[kind];

/** An amount of a kind: bytes in human units, counts with grouping. */
export function amount(kind: LimitKind, n: number): string {
  return kind === 'storage_bytes' ? formatBytes(n) : formatNumber(n);
}

/** A plan's limit as a card lists it: "5 GB storage", "3 members", "Unlimited assets". */
export function limitLine(kind: LimitKind, limits: Limits): string {
  const limit = limits[kind];
  return limit === null ? `Unlimited ${NOUN[kind]}` : `${amount(kind, limit)} ${NOUN[kind]}`;
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
      label: LABEL[kind],
      used,
      limit,
      share: limit === null ? null : limit === 0 ? 1 : used / limit,
      level: levelOf(used, limit),
      text: limit === null ? `${amount(kind, used)} (unlimited)` : `${amount(kind, used)} of ${amount(kind, limit)}`,
    };
  });
}

const LIVE = new Set(['active', 'trialing', 'past_due']);

/** A paid subscription runs: plans are changed in Stripe's billing portal, not through a new checkout. */
export const hasLiveSubscription = (sub: Subscription) => LIVE.has(sub.status);

const STATUS: Record<string, string> = {
  none: 'No subscription',
  active: 'Active',
  trialing: 'Trial',
  past_due: 'Payment overdue',
  unpaid: 'Unpaid',
  canceled: 'Canceled',
  incomplete: 'Payment incomplete',
  incomplete_expired: 'Checkout expired',
  paused: 'Paused',
};

export const statusLabel = (sub: Subscription) => (sub.read_only ? 'Read-only' : (STATUS[sub.status] ?? sub.status));

/** Sentences about the subscription's state beyond its plan: renewal, cancellation, overdue payment. */
export function statusLines(sub: Subscription): string[] {
  const lines: string[] = [];
  if (sub.read_only) {
    lines.push(
      `A payment failed and the workspace is read-only${sub.past_due_until ? ` since ${formatDate(sub.past_due_until)}` : ''}: files can be viewed and downloaded, but uploads and changes are refused until the payment is made in Manage billing.`,
    );
  } else if (sub.status === 'past_due') {
    lines.push(
      `A payment failed. ${sub.past_due_until ? `Unless it is paid by ${formatDate(sub.past_due_until)}, the workspace then becomes read-only` : 'Unless it is paid, the workspace becomes read-only'}: pay in Manage billing.`,
    );
  }
  if (sub.current_period_end && LIVE.has(sub.status)) {
    lines.push(
      sub.cancel_at_period_end
        ? `The subscription ends on ${formatDate(sub.current_period_end)}; the workspace then returns to the free plan's limits. Nothing is deleted.`
        : `Renews on ${formatDate(sub.current_period_end)}.`,
    );
  }
  if (sub.status === 'canceled') lines.push("The subscription was canceled: the free plan's limits apply. Nothing was deleted.");
  return lines;
}

export interface Attention {
  level: 'warning' | 'error';
  text: string;
}

/** What the app shell's banner says about a workspace, or null when all is well (issue #17). */
export function attention(sub: Subscription): Attention | null {
  if (sub.read_only) {
    return {
      level: 'error',
      text: `This workspace is read-only${sub.past_due_until ? ` since ${formatDate(sub.past_due_until)}` : ''} because a payment failed: files can be viewed and downloaded, but uploads and changes are refused until it is paid.`,
    };
  }
  // Limits reached first: they already stop something.
  const rows = usageRows(sub);
  const parts = [
    ...rows.filter((r) => r.level === 'full').map((r) => `has reached its ${NOUN[r.kind]} limit (${r.text}): ${BLOCKS[r.kind]}`),
    ...rows.filter((r) => r.level === 'near').map((r) => `uses ${Math.floor((r.share ?? 0) * 100)} % of its ${NOUN[r.kind]} limit (${r.text})`),
  ];
  const level: Attention['level'] = rows.some((r) => r.level === 'full') ? 'error' : 'warning';
  const overdue =
    sub.status === 'past_due'
      ? `A payment for this workspace failed: ${sub.past_due_until ? `unless it is paid by ${formatDate(sub.past_due_until)}, the workspace becomes read-only` : 'unless it is paid, the workspace becomes read-only'}.`
      : null;
  if (!parts.length) return overdue ? { level: 'warning', text: overdue } : null;
  const usage = `This workspace ${parts.join('; it ')}.`;
  return { level, text: overdue ? `${overdue} ${usage}` : usage };
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
  if (kind === 'storage_bytes') return `Over the plan's storage limit: ${formatBytes(quota.used)} used, this file needs ${formatBytes(quota.requested)}.`;
  return `Over the plan's ${NOUN[kind]} limit: ${amount(kind, quota.used)} used, ${amount(kind, quota.requested)} more asked for.`;
}
