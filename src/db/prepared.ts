import type { CompiledQuery, Compilable } from 'kysely';
import type { DB } from './database.js';

/** Stands in for parameter i while the statement is built; never sent to the database. */
const sentinel = (i: number): string => `\u0000prepared-parameter-${i}\u0000`;

/**
 * A statement of a hot path (every request: the session lookup, the role check), built and
 * compiled by Kysely once per database handle and then run with fresh parameters. Building and
 * compiling the same query tree again on every request was about a quarter of the CPU of an
 * authenticated read (issue #18). `build` must be a fixed shape: every argument is used as a
 * plain value, once or more, never inspected (no `if`, no list of variable length).
 *
 * The arguments are located by sentinels: `build` runs with unique marker values and each marker
 * is found among the compiled parameters, so the order Kysely emits them in does not matter.
 * A transaction handle is another handle: it compiles its own copy (kept weakly, dropped with it).
 */
export function prepared<A extends unknown[], R>(build: (db: DB, ...args: A) => Compilable<R>): (db: DB, ...args: A) => Promise<R[]> {
  const cache = new WeakMap<DB, { query: CompiledQuery<R>; slots: number[] }>();
  return async (db, ...args) => {
    let entry = cache.get(db);
    if (!entry) {
      const markers = args.map((_, i) => sentinel(i));
      const query = build(db, ...(markers as unknown as A)).compile();
      const slots = query.parameters.map((value) => {
        const slot = markers.indexOf(value as string);
        if (slot < 0) throw new Error(`prepared(): a parameter of "${query.sql}" is not one of the arguments; the statement is not a fixed shape`);
        return slot;
      });
      entry = { query, slots };
      cache.set(db, entry);
    }
    const { query, slots } = entry;
    const result = await db.executeQuery<R>({ ...query, parameters: slots.map((slot) => args[slot]) });
    return result.rows;
  };
}
