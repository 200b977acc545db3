import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KIND } from '../src/search/collections.js';
import { sqliteTextSearch } from '../src/search/dialects/sqlite.js';
import { countDocuments } from '../src/search/repository.js';
import { queryWords } from '../src/search/text-query.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { registerUser, type Account } from './helpers/factories.js';
import { seedCorpus } from './helpers/search-fixtures.js';

/**
 * SQLite only: a count without filters is taken by lookups for small matches
 * and inside FTS5 (scope tokens) for large ones (src/search/dialects/sqlite.ts).
 * Both plans must count the same documents; the threshold is moved to force each.
 */
describe('SQLite text counts', () => {
  let t: TestApp;
  let alice: Account;
  let bob: Account;

  beforeAll(async () => {
    t = await startTestApp({ dialect: 'sqlite' });
    [alice, bob] = await Promise.all([registerUser(t), registerUser(t)]);
    await seedCorpus(t, alice, alice.workspaceId);
    await seedCorpus(t, bob, bob.workspaceId);
  });
  afterAll(() => t.close());

  it.each(['beach', 'img', 'red car', 'jpg', 'été', 'summer', 'trips', 'nomatch'])('q=%s counts alike by lookups and by scope tokens', async (q) => {
    for (const collection of ['digital_assets', 'digital_assets_categories', 'dam_collections'] as const) {
      for (const workspaceIds of [[alice.workspaceId], [bob.workspaceId], [alice.workspaceId, bob.workspaceId]]) {
        const plan = { kind: KIND[collection], workspaceIds, words: queryWords(q), filter: null, required: [], sort: null };
        const byLookups = await countDocuments(t.database.db, sqliteTextSearch(1_000_000), plan);
        const byScope = await countDocuments(t.database.db, sqliteTextSearch(0), plan);
        expect(byScope).toBe(byLookups);
      }
    }
  });
});
