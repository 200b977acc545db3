import type { Kysely } from 'kysely';
import type { DialectSupport } from '../dialects/types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/**
 * Payments (issue #17).
 * - workspace_billing: a workspace's Stripe customer (created once, reused) and the state of its
 *   subscription as last read from Stripe. No row: the workspace never went to checkout (free plan).
 *   The plan is not stored: it follows from the subscription's price and the plans file at read time.
 * - payment_events: each Stripe event id processed, inserted in the transaction that applies it, so
 *   a redelivered event does nothing.
 */
export async function up(db: AnyDB, d: DialectSupport): Promise<void> {
  await db.schema
    .createTable('workspace_billing')
    .addColumn('workspace_id', 'integer', (c) => c.primaryKey().references('workspaces.id').onDelete('cascade'))
    .addColumn('stripe_customer_id', 'text', (c) => c.unique())
    .addColumn('stripe_subscription_id', 'text')
    .addColumn('stripe_price_id', 'text')
    // Stripe's subscription status (active, trialing, past_due, canceled, ...); null: no subscription yet.
    .addColumn('status', 'text')
    .addColumn('current_period_end', d.bigint)
    .addColumn('cancel_at_period_end', 'integer', (c) => c.notNull().defaultTo(0))
    // When the subscription last became past_due (the grace period of step 2 counts from it).
    .addColumn('past_due_since', d.bigint)
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .addColumn('updated_at', d.bigint, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('payment_events')
    .addColumn('event_id', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('workspace_id', 'integer', (c) => c.references('workspaces.id').onDelete('set null'))
    .addColumn('received_at', d.bigint, (c) => c.notNull())
    .execute();
}
