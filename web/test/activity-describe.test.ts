import { describe, expect, it } from 'vitest';
import { describeAction, describeChanges, formatValue, splitSentence } from '../src/activity/describe';
import type { ActivityEntry } from '../src/api/types';

function entry(action: ActivityEntry['action'], changes: ActivityEntry['changes'] = {}, subject: Partial<ActivityEntry['subject']> = {}): ActivityEntry {
  return {
    id: 1,
    workspace_id: 1,
    action,
    actor: { id: 7, name: 'Ada' },
    subject: { kind: 'asset', id: 3, name: 'photo.png', ...subject },
    asset_id: 3,
    changes,
    created_at: 1_700_000_000,
  };
}

describe('activity entries in words', () => {
  it('shows each changed field as before → after, in the user’s terms', () => {
    const e = entry('asset.update', {
      display_file_name: { before: 'IMG_1.png', after: 'photo.png' },
      tags: { before: [], after: ['summer', 'beach'] },
      visibility: { before: 1, after: 0 },
    });
    expect(describeAction(e)).toBe('edited {subject}');
    expect(describeChanges(e)).toEqual([
      { label: 'Name', before: '“IMG_1.png”', after: '“photo.png”' },
      { label: 'Tags', before: 'none', after: 'summer, beach' },
      { label: 'Visibility', before: 'private', after: 'public' },
    ]);
  });

  it('says what a single-field edit was', () => {
    expect(describeAction(entry('asset.update', { display_file_name: { before: 'a', after: 'b' } }))).toBe('renamed {subject}');
    expect(describeAction(entry('asset.update', { tags: { before: ['a'], after: [] } }))).toBe('changed the tags of {subject}');
    expect(describeAction(entry('asset.update', { visibility: { before: 0, after: 1 } }))).toBe('made {subject} private');
    expect(describeAction(entry('folder.update', { name: { before: 'a', after: 'b' } }, { kind: 'folder' }))).toBe('renamed the folder {subject}');
  });

  it('names folders of a move, the top level when there is none, and an unknown folder by id', () => {
    const folderName = (id: number) => (id === 4 ? 'Archive' : undefined);
    expect(describeChanges(entry('asset.move', { folder_id: { before: null, after: 4 } }), { folderName })).toEqual([
      { label: 'Folder', before: 'top level', after: '“Archive”' },
    ]);
    expect(formatValue('parent_id', 99, { folderName })).toBe('folder #99');
  });

  it('a restored version says which one it copies, without repeating it in the lines', () => {
    const e = entry('version.restore', {
      version: { before: 'v2', after: 'v3' },
      file_size: { before: 2048, after: 1024 },
      restored_from: { before: null, after: { id: 11, version: 'v1' } },
    });
    expect(describeAction(e)).toBe('restored v1 of {subject}');
    expect(describeChanges(e)).toEqual([
      { label: 'Version', before: 'v2', after: 'v3' },
      { label: 'Size', before: '2.0 kB', after: '1.0 kB' },
    ]);
  });

  it('metadata: one line per changed key, a key added reads none before, and the keys left out are counted', () => {
    const e = entry('asset.update', { metadata: { before: { camera: 'X100' }, after: { camera: 'X200', lens: '23mm' }, omitted: 2 } });
    expect(describeChanges(e)).toEqual([
      { label: 'Metadata “camera”', before: 'X100', after: 'X200' },
      { label: 'Metadata “lens”', before: 'none', after: '23mm' },
      { label: 'Metadata', text: 'and 2 other keys changed' },
    ]);
  });

  it('collection membership and emptied trash say how many, in the sentence', () => {
    const added = entry('collection.add_assets', { asset_ids: { before: null, after: [1, 2, 3], omitted: 2 } }, { kind: 'collection' });
    expect(describeAction(added)).toBe('added 5 assets to the collection {subject}');
    expect(describeChanges(added)).toEqual([]);
    const emptied = entry('workspace.empty_trash', { assets: { before: 3, after: 0 }, folders: { before: 1, after: 0 } }, { kind: 'workspace' });
    expect(describeAction(emptied)).toBe('emptied the trash (3 assets, 1 folder)');
    expect(describeChanges(emptied)).toEqual([]);
  });

  it('members: the role given in the sentence, a role change as a line', () => {
    expect(describeAction(entry('member.add', { role: { before: null, after: 'manager' } }, { kind: 'user', name: 'Bob' }))).toBe(
      'added {subject} to the workspace as manager',
    );
    expect(describeChanges(entry('member.role', { role: { before: 'viewer', after: 'admin' } }, { kind: 'user' }))).toEqual([
      { label: 'Role', before: 'viewer', after: 'admin' },
    ]);
  });

  it('splits the sentence around the subject, and an unknown field gets a readable label', () => {
    expect(splitSentence(entry('asset.trash'))).toEqual({ pre: 'moved ', post: ' to the trash', hasSubject: true });
    expect(splitSentence(entry('workspace.purge_trash', {}, { kind: 'workspace' }))).toEqual({
      pre: 'deleted old items from the trash for good',
      post: '',
      hasSubject: false,
    });
    expect(describeChanges(entry('asset.update', { focal_point: { before: null, after: { x: 1 } } }))).toEqual([
      { label: 'Focal point', before: 'none', after: '{"x":1}' },
    ]);
  });
});

describe('activity lines left out', () => {
  it('a first upload has no lines, and a change that reads the same is not shown', () => {
    const upload = entry('asset.upload', { version: { before: null, after: 'v1' }, file_name: { before: null, after: 'a.png' }, file_size: { before: null, after: 10 } });
    expect(describeChanges(upload)).toEqual([]);
    const version = entry('version.upload', { version: { before: 'v1', after: 'v2' }, file_size: { before: 3400, after: 3420 } });
    expect(describeChanges(version)).toEqual([{ label: 'Version', before: 'v1', after: 'v2' }]);
  });
});

describe('shared-link entries in words (issue #14)', () => {
  it('names the link and puts its settings in words', () => {
    const subject = { kind: 'share' as const, id: 4, name: 'Press kit' };
    expect(describeAction(entry('share.create', {}, subject))).toBe('created the shared link {subject}');
    expect(describeAction(entry('share.revoke', {}, subject))).toBe('revoked the shared link {subject}');
    const update = entry(
      'share.update',
      {
        expires_at: { before: 1_700_000_000, after: null },
        has_password: { before: true, after: false },
        allow_download: { before: true, after: false },
        max_downloads: { before: null, after: 5 },
        password: { before: 'set', after: 'changed' },
      },
      subject,
    );
    expect(describeAction(update)).toBe('changed the shared link {subject}');
    const lines = describeChanges(update);
    expect(lines[0]).toMatchObject({ label: 'Expires', after: 'never' });
    expect(lines[0]!.before).not.toBe('never');
    expect(lines.slice(1)).toEqual([
      { label: 'Password', before: 'set', after: 'none' },
      { label: 'Downloads', before: 'allowed', after: 'not allowed' },
      { label: 'Download limit', before: 'no limit', after: '5' },
      { label: 'Password', before: 'set', after: 'changed' },
    ]);
  });
});
