import type { Selectable } from 'kysely';
import type { DB } from '../db/database.js';
import type { WorkspaceBillingTable } from '../db/schema.js';

/** SQL for payments (migration 0019): workspaces' Stripe state, processed events. Usage: ./usage.ts. */

export type BillingRecord = Selectable<WorkspaceBillingTable>;

export interface SubscriptionFields {
  stripe_subscription_id: string;
  stripe_price_id: string | null;
  status: string;
  current_period_end: number | null;
  cancel_at_period_end: number;
  past_due_since: number | null;
}

export function findBilling(db: DB, workspaceId: number): Promise<BillingRecord | undefined> {
  return db.selectFrom('workspace_billing').selectAll().where('workspace_id', '=', workspaceId).executeTakeFirst();
}

export async function workspaceOfCustomer(db: DB, customerId: string): Promise<number | undefined> {
  const row = await db.selectFrom('workspace_billing').select('workspace_id').where('stripe_customer_id', '=', customerId).executeTakeFirst();
  return row?.workspace_id;
}

/**
 * Records the workspace's customer unless it has one already, and answers the one it holds:
 * two checkouts at once both end up with the first customer stored.
 */
export async function claimCustomer(db: DB, workspaceId: number, customerId: string, now: number): Promise<string> {
  await db
    .insertInto('workspace_billing')
    .values({ workspace_id: workspaceId, stripe_customer_id: customerId, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column('workspace_id').doNothing())
    .execute();
  await db
    .updateTable('workspace_billing')
    .set({ stripe_customer_id: customerId, updated_at: now })
    .where('workspace_id', '=', workspaceId)
    .where('stripe_customer_id', 'is', null)
    .execute();
  const row = await findBilling(db, workspaceId);
  return row!.stripe_customer_id!;
}

export async function saveSubscription(db: DB, workspaceId: number, customerId: string, fields: SubscriptionFields, now: number): Promise<void> {
  await db
    .insertInto('workspace_billing')
    .values({ workspace_id: workspaceId, stripe_customer_id: customerId, ...fields, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column('workspace_id').doUpdateSet({ ...fields, updated_at: now }))
    .execute();
}

export async function eventSeen(db: DB, eventId: string): Promise<boolean> {
  const row = await db.selectFrom('payment_events').select('event_id').where('event_id', '=', eventId).executeTakeFirst();
  return row !== undefined;
}

/** Inserts the event id; false when it was there already (a redelivery processed meanwhile). */
export async function recordEvent(db: DB, eventId: string, type: string, workspaceId: number | null, now: number): Promise<boolean> {
  const row = await db
    .insertInto('payment_events')
    .values({ event_id: eventId, type, workspace_id: workspaceId, received_at: now })
    .onConflict((oc) => oc.column('event_id').doNothing())
    .returning('event_id')
    .executeTakeFirst();
  return row !== undefined;
}
