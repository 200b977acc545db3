import { reactive } from 'vue';
import { ApiError } from '../api/http';
import { paymentsApi, type PaymentsApi, type Plan, type Subscription } from '../api/payments';
import { session } from '../stores/session';

/**
 * Billing state of the workspace in view (issue #17): whether this instance has payments at all, and the
 * workspace's subscription (plan, limits, usage). Asked lazily, once per workspace switch: the app shell's
 * banner and the settings tabs read it, the Billing tab reloads it. Payments off (404 PAYMENTS_DISABLED)
 * is remembered for the page load, so an instance without payments costs one request, then none.
 */
interface BillingState {
  /** null: not known yet; false: this instance has no payments (nothing about billing is shown). */
  enabled: boolean | null;
  /** The workspace `subscription` belongs to. */
  workspaceId: number | null;
  subscription: Subscription | null;
  /** The instance's plans, in the plans file's order (asked by the Billing tab). */
  plans: Plan[] | null;
  /** The user the answers are for (another user signing in in this tab asks again). */
  userId: number | null;
}

export const billing = reactive<BillingState>({ enabled: null, workspaceId: null, subscription: null, plans: null, userId: null });

let api: Pick<PaymentsApi, 'plans' | 'subscription'> = paymentsApi;
let pending: { workspaceId: number; promise: Promise<Subscription | null> } | undefined;
let generation = 0;

const isDisabled = (err: unknown) => err instanceof ApiError && err.status === 404 && (err.code === 'PAYMENTS_DISABLED' || err.isMissingRoute);

function sameUser(): boolean {
  const userId = session.user?.id ?? null;
  if (billing.userId === userId) return true;
  generation += 1;
  pending = undefined;
  Object.assign(billing, { workspaceId: null, subscription: null, plans: null, userId });
  return false;
}

/**
 * The workspace's subscription: the one held when it is this workspace's (unless `force`), otherwise asked
 * for. null when payments are off or the answer failed (the banner then stays away; the Billing tab says why).
 */
export function loadSubscription(workspaceId: number, options: { force?: boolean } = {}): Promise<Subscription | null> {
  sameUser();
  if (billing.enabled === false || !session.token) return Promise.resolve(null);
  if (!options.force && billing.workspaceId === workspaceId && billing.subscription) return Promise.resolve(billing.subscription);
  if (!options.force && pending?.workspaceId === workspaceId) return pending.promise;
  const mine = ++generation;
  const promise = (async () => {
    try {
      const sub = await api.subscription(workspaceId);
      if (mine === generation) Object.assign(billing, { enabled: true, workspaceId, subscription: sub });
      return sub;
    } catch (err) {
      if (mine !== generation) return null;
      if (isDisabled(err)) {
        Object.assign(billing, { enabled: false, workspaceId: null, subscription: null });
        return null;
      }
      Object.assign(billing, { workspaceId, subscription: null });
      throw err;
    } finally {
      if (mine === generation) pending = undefined;
    }
  })();
  pending = { workspaceId, promise };
  return promise;
}

/** The instance's plans (asked once per page load); null when payments are off. */
export async function loadPlans(): Promise<Plan[] | null> {
  sameUser();
  if (billing.enabled === false) return null;
  if (billing.plans) return billing.plans;
  try {
    const { plans } = await api.plans();
    Object.assign(billing, { enabled: true, plans });
    return plans;
  } catch (err) {
    if (!isDisabled(err)) throw err;
    billing.enabled = false;
    return null;
  }
}

/** Something changed the workspace's usage or plan (a refused upload, a checkout): ask again when next needed. */
export function staleSubscription(workspaceId: number): void {
  if (billing.workspaceId !== workspaceId) return;
  void loadSubscription(workspaceId, { force: true }).catch(() => undefined);
}

/** For unit tests: a fake API, and everything forgotten. */
export function resetBilling(next: Pick<PaymentsApi, 'plans' | 'subscription'> = paymentsApi): void {
  api = next;
  generation += 1;
  pending = undefined;
  Object.assign(billing, { enabled: null, workspaceId: null, subscription: null, plans: null, userId: null });
}
