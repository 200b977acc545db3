import type { DB } from '../db/database.js';
import type { TextSearchDialect } from '../search/dialects/index.js';
import type { SearchPlan } from '../search/repository.js';
import type { TypoOptions } from '../search/typos/options.js';
import { typoAlternatives } from '../search/typos/repository.js';

/**
 * A search that forgives typos (issue #27, section 3), as Typesense does: `run` (a page, or the matching ids) with the
 * query as typed first; when it finds fewer documents than typo_tokens_threshold (default 1: none), each word long
 * enough for a typo is widened to the dictionary words within its budget and `run` goes again, exact matches ranked
 * before typo matches (tier 3, search/dialects/). A query as typed that already finds enough costs nothing more.
 */
export async function forgiving<T extends { found: number }>(
  db: DB,
  dialect: TextSearchDialect,
  plan: SearchPlan,
  typos: TypoOptions,
  run: (plan: SearchPlan) => Promise<T>,
): Promise<T> {
  const exact = await run(plan);
  if (!plan.words || typos.numTypos === 0 || exact.found >= typos.tokensThreshold) return exact;
  const alternatives = await typoAlternatives(db, dialect, plan.workspaceIds, plan.words, typos);
  return alternatives ? run({ ...plan, typos: { alternatives, typedFound: exact.found > 0 } }) : exact;
}
