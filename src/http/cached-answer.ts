import type { FastifyReply } from 'fastify';
import type { AnswerCache } from '../domain/answer-cache.js';

/**
 * Sends the 200 answer of `compute`, serialized by the route's own response schema (what Fastify would send
 * for the object), from `cache` when the same key was answered and nothing changed since.
 * `keyOf` checks who may read (it throws otherwise) and names the answer: the cache only knows keys. Without a
 * working cache (PostgreSQL) it is not called: `compute` checks access itself, and checking twice would cost a
 * round trip per request. `changes`: the request's change token (its caller's).
 */
export async function sendCachedAnswer(
  reply: FastifyReply,
  cache: AnswerCache<Buffer>,
  keyOf: () => Promise<string>,
  compute: () => Promise<unknown>,
  changes?: () => string,
): Promise<FastifyReply> {
  const serialized = async () => {
    const answer = (await compute()) as Record<string, unknown>;
    const serialize = reply.getSerializationFunction('200');
    return Buffer.from(serialize ? serialize(answer) : JSON.stringify(answer));
  };
  // An inactive cache computes every answer (and counts it as a miss) whatever the key.
  const body = await cache.get(cache.active ? await keyOf() : '', serialized, changes);
  return reply.type('application/json; charset=utf-8').send(body);
}

/** A query object as a key: its members in name order, so `?a=1&b=2` and `?b=2&a=1` are one answer. */
export function queryKey(query: object): string {
  return JSON.stringify(Object.entries(query).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
