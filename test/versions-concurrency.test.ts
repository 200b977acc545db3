import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { dialects } from './helpers/databases.js';
import { registerUser, type Account } from './helpers/factories.js';
import { getAssetJson, listVersions, postVersion, serverUpload, text, type VersionJson } from './helpers/versions.js';

/** seed 3, 9 under load: labels are assigned under the asset's row lock, and the database allows one current version. */
describe.each(dialects)('concurrent versions on %s', (dialect) => {
  let t: TestApp;
  let owner: Account;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    owner = await registerUser(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('20 simultaneous uploads to one asset end with 20 distinct new labels, exactly one current, none lost', async () => {
    const asset = await serverUpload(t, owner, text('v1'));
    const contents = Array.from({ length: 20 }, (_, i) => `upload ${i}`);
    const answers = await Promise.all(contents.map((c) => postVersion(t, owner, asset.id, text(c, `${c}.txt`))));
    expect(answers.map((r) => r.statusCode)).toEqual(Array(20).fill(201));
    const labels = answers.map((r) => r.json<VersionJson>().version);
    expect(new Set(labels).size).toBe(20);

    const versions = await listVersions(t, owner, asset.id);
    expect(versions.map((v) => v.version)).toEqual(Array.from({ length: 21 }, (_, i) => `v${21 - i}`));
    expect(versions.filter((v) => v.is_current).map((v) => v.version)).toEqual(['v21']);
    // Every upload kept its own file.
    const stored = await Promise.all(
      versions.slice(0, 20).map(async (v) => (await t.request({ method: 'GET', url: `/dam/versions/${v.id}/download`, token: owner.token })).body),
    );
    expect(stored.sort()).toEqual([...contents].sort());
    // The asset follows the one current version.
    const current = versions[0]!;
    expect(await getAssetJson(t, owner, asset.id)).toMatchObject({ file_name: current.file_name, file_size: current.file_size });
  });

  it('the database itself refuses a second current version and a reused label', async () => {
    const asset = await serverUpload(t, owner, text('a'));
    await postVersion(t, owner, asset.id, text('b'));
    const [, history] = await listVersions(t, owner, asset.id);
    const db = t.database.db;
    await expect(db.updateTable('asset_versions').set({ is_current: 1 }).where('id', '=', history!.id).execute()).rejects.toThrow(/unique/i);
    await expect(db.updateTable('asset_versions').set({ number: 2 }).where('id', '=', history!.id).execute()).rejects.toThrow(/unique/i);
    await expect(sql`update asset_versions set number = null where id = ${history!.id}`.execute(db)).rejects.toThrow(/check/i);
    expect((await listVersions(t, owner, asset.id)).map((v) => [v.version, v.is_current])).toEqual([
      ['v2', true],
      ['v1', false],
    ]);
  });
});
