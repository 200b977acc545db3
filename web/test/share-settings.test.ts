import { flushPromises, mount } from '@vue/test-utils';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../src/api/http';
import type { Share, ShareCreateRequest } from '../src/api/shares';
import ShareDialog from '../src/components/ShareDialog.vue';
import { PASSPHRASE_WORDS, suggestPassphrase } from '../src/shares/passphrase';
import {
  createRequest,
  describeDownloads,
  describeExpiry,
  describeTarget,
  editShareForm,
  endOfDay,
  expiryOptions,
  formFieldOf,
  formProblem,
  isoDay,
  lastAllowedDay,
  newShareForm,
  patchRequest,
} from '../src/shares/settings';

const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);
const now = NOW / 1000;
const DAY = 86_400;

function link(overrides: Partial<Share> = {}): Share {
  return {
    id: 4,
    workspace_id: 2,
    key: 'k'.repeat(24),
    url: `https://dam.example/s/${'k'.repeat(24)}`,
    target: 'folder',
    asset_ids: [],
    folder_id: 9,
    collection_id: null,
    version_id: null,
    expires_at: now + 10 * DAY,
    has_password: true,
    allow_download: true,
    max_downloads: 20,
    download_count: 3,
    view_count: 7,
    last_accessed_at: now - 60,
    description: 'Press kit',
    status: 'active',
    created_by: { id: 1, name: 'Ada' },
    created_at: now - DAY,
    updated_at: now - DAY,
    revoked_at: null,
    ...overrides,
  };
}

describe('a new link’s request', () => {
  it('leaves the defaults to the server: 30 days, no password, downloads without a limit', () => {
    expect(createRequest(2, { asset_ids: [5, 6] }, newShareForm(), NOW)).toEqual({ workspaceId: 2, asset_ids: [5, 6] });
  });

  it('sends what was chosen: another expiry, never, a day, a password, downloads off, a limit, a description', () => {
    const form = { ...newShareForm(), expiry: '7d' as const, passwordMode: 'set' as const, password: 'summer sea', limitDownloads: true, maxDownloads: 3, description: 'For the press' };
    expect(createRequest(2, { folder_id: 9 }, form, NOW)).toEqual({
      workspaceId: 2,
      folder_id: 9,
      expires_at: now + 7 * DAY,
      password: 'summer sea',
      max_downloads: 3,
      description: 'For the press',
    });
    expect(createRequest(2, { collection_id: 1 }, { ...newShareForm(), expiry: 'never' }, NOW)).toMatchObject({ expires_at: null });
    const day = createRequest(2, { collection_id: 1 }, { ...newShareForm(), expiry: 'date', date: '2026-07-04' }, NOW);
    expect(day.expires_at).toBe(Math.floor(new Date(2026, 6, 4, 23, 59, 59).getTime() / 1000));
    // Downloads off: no limit is sent (it would mean nothing).
    expect(createRequest(2, { version_id: 8 }, { ...newShareForm(), allowDownload: false, limitDownloads: true, maxDownloads: 4 }, NOW)).toEqual({
      workspaceId: 2,
      version_id: 8,
      allow_download: false,
    });
    // A description of blanks is none.
    expect(createRequest(2, { folder_id: 9 }, { ...newShareForm(), description: '  \n ' }, NOW)).toEqual({ workspaceId: 2, folder_id: 9 });
  });

  it('finds what the server would refuse before asking it', () => {
    expect(formProblem(newShareForm(), NOW)).toBeNull();
    expect(formProblem({ ...newShareForm(), expiry: 'date', date: '' }, NOW)?.field).toBe('date');
    expect(formProblem({ ...newShareForm(), expiry: 'date', date: '2026-05-31' }, NOW)?.message).toContain('The date has passed');
    expect(formProblem({ ...newShareForm(), expiry: 'date', date: '2026-06-01' }, NOW)).toBeNull();
    expect(formProblem({ ...newShareForm(), passwordMode: 'set', password: '' }, NOW)?.field).toBe('password');
    // Issue #28: at least 8 characters, as the server requires.
    expect(formProblem({ ...newShareForm(), passwordMode: 'set', password: 'letmein' }, NOW)?.message).toContain('at least 8 characters');
    expect(formProblem({ ...newShareForm(), passwordMode: 'set', password: 'let me in' }, NOW)).toBeNull();
    expect(formProblem({ ...newShareForm(), limitDownloads: true, maxDownloads: 0 }, NOW)?.field).toBe('maxDownloads');
    expect(formProblem({ ...newShareForm(), limitDownloads: true, maxDownloads: 2.5 }, NOW)?.field).toBe('maxDownloads');
    expect(formProblem({ ...newShareForm(), limitDownloads: true, maxDownloads: null }, NOW)?.field).toBe('maxDownloads');
    // With downloads off the limit field is not used.
    expect(formProblem({ ...newShareForm(), allowDownload: false, limitDownloads: true, maxDownloads: null }, NOW)).toBeNull();
    expect(formProblem({ ...newShareForm(), description: 'x'.repeat(2001) }, NOW)?.field).toBe('description');
    expect(endOfDay('2026-02-30')).not.toBeNull();
    expect(endOfDay('tomorrow')).toBeNull();
  });
});

describe('an edited link’s request', () => {
  it('is empty while nothing changed', () => {
    expect(patchRequest(link(), editShareForm(link()), NOW)).toEqual({});
    expect(patchRequest(link({ has_password: false, max_downloads: null, description: null }), editShareForm(link({ has_password: false, max_downloads: null, description: null })), NOW)).toEqual({});
  });

  it('sends only what changed, with null removing the password, the expiry, the limit and the description', () => {
    const l = link();
    const form = { ...editShareForm(l), expiry: 'never' as const, passwordMode: 'remove' as const, limitDownloads: false, description: '' };
    expect(patchRequest(l, form, NOW)).toEqual({ expires_at: null, password: null, max_downloads: null, description: null });
    expect(patchRequest(l, { ...editShareForm(l), passwordMode: 'set', password: 'new one' }, NOW)).toEqual({ password: 'new one' });
    expect(patchRequest(l, { ...editShareForm(l), expiry: '90d' }, NOW)).toEqual({ expires_at: now + 90 * DAY });
    expect(patchRequest(l, { ...editShareForm(l), maxDownloads: 50 }, NOW)).toEqual({ max_downloads: 50 });
    // Turning downloads off leaves the limit as it is (it comes back with them).
    expect(patchRequest(l, { ...editShareForm(l), allowDownload: false }, NOW)).toEqual({ allow_download: false });
  });

  it('offers to keep the expiry first, and "never" only to admins and only when it is not already so', () => {
    const values = (o: { value: string }[]) => o.map((x) => x.value);
    expect(values(expiryOptions({ isAdmin: false }))).toEqual(['1d', '7d', '30d', '90d', '365d', 'date']);
    expect(values(expiryOptions({ isAdmin: true }))).toEqual(['1d', '7d', '30d', '90d', '365d', 'date', 'never']);
    const editing = expiryOptions({ isAdmin: true, editing: true, current: now + 3 * DAY, now: NOW });
    expect(editing[0]!.value).toBe('keep');
    expect(editing[0]!.label).toMatch(/^Keep: Expires in 3 days \(/);
    expect(editing[1]!.label).toBe('From now: 1 day');
    expect(values(expiryOptions({ isAdmin: true, editing: true, current: null, now: NOW }))).not.toContain('never');
    expect(expiryOptions({ isAdmin: false, editing: true, current: null, now: NOW })[0]!.label).toBe('Keep: Never expires');
  });

  it("keeps a manager's choices within the workspace's cap (issue #28); admins are not capped", () => {
    const values = (o: { value: string }[]) => o.map((x) => x.value);
    expect(values(expiryOptions({ isAdmin: false, maxDays: 30 }))).toEqual(['1d', '7d', '30d', 'date']);
    expect(values(expiryOptions({ isAdmin: false, editing: true, current: now + DAY, maxDays: 7, now: NOW }))).toEqual(['keep', '1d', '7d', 'date']);
    expect(values(expiryOptions({ isAdmin: true, maxDays: 7 }))).toContain('365d');
    const far = isoDay(NOW + 40 * DAY * 1000);
    expect(formProblem({ ...newShareForm(), expiry: 'date', date: far }, NOW, 30)).toMatchObject({ field: 'date', message: expect.stringContaining('at most 30 days') as string });
    expect(formProblem({ ...newShareForm(), expiry: 'date', date: far }, NOW, null)).toBeNull();
    expect(formProblem({ ...newShareForm(), expiry: 'date', date: lastAllowedDay(30, NOW)! }, NOW, 30)).toBeNull();
  });
});

describe('links in words', () => {
  it('says when a link expires, and when it did', () => {
    expect(describeExpiry(null, NOW)).toBe('Never expires');
    expect(describeExpiry(now + 30 * DAY, NOW)).toMatch(/^Expires in 30 days \(/);
    expect(describeExpiry(now + 5 * 3600, NOW)).toMatch(/^Expires in 5 h \(/);
    expect(describeExpiry(now + 600, NOW)).toMatch(/^Expires in 10 min \(/);
    expect(describeExpiry(now - 60, NOW)).toMatch(/^Expired on /);
  });

  it('counts downloads against the limit', () => {
    expect(describeDownloads(link())).toBe('3 of 20 downloads');
    expect(describeDownloads(link({ max_downloads: null, download_count: 1 }))).toBe('1 download');
    expect(describeDownloads(link({ allow_download: false }))).toBe('Downloads off');
  });

  it('names what a link shows, and a target deleted since', () => {
    const names = { folderName: (id: number) => (id === 9 ? 'Press' : undefined), collectionName: () => 'Spring', assetName: () => 'photo.jpg' };
    expect(describeTarget(link(), names)).toBe('Folder “Press”');
    expect(describeTarget(link({ folder_id: 10 }), names)).toBe('Folder #10');
    expect(describeTarget(link({ folder_id: null }), names)).toBe('A deleted folder');
    expect(describeTarget(link({ target: 'collection', collection_id: 3 }), names)).toBe('Collection “Spring”');
    expect(describeTarget(link({ target: 'assets', asset_ids: [5] }), names)).toBe('“photo.jpg”');
    expect(describeTarget(link({ target: 'assets', asset_ids: [5] }))).toBe('One asset');
    expect(describeTarget(link({ target: 'assets', asset_ids: [5, 6, 7] }), names)).toBe('3 assets');
    expect(describeTarget(link({ target: 'version', version_id: 2 }), names)).toBe('One version of an asset');
  });

  it('maps the field an API error names to the form’s', () => {
    expect(formFieldOf('expires_at')).toBe('expiry');
    expect(formFieldOf('body.max_downloads')).toBe('maxDownloads');
    expect(formFieldOf('folder_id')).toBeNull();
  });
});

describe('ShareDialog', () => {
  const mountDialog = (create: (body: ShareCreateRequest) => Promise<Share>, props: Record<string, unknown> = {}) =>
    mount(ShareDialog, {
      props: {
        workspaceId: 2,
        target: { asset_ids: [5] },
        subject: '“photo.jpg”',
        isAdmin: false,
        api: { create: vi.fn(create) },
        loadWorkspace: vi.fn(async () => ({ share_max_expiry_days: 90 })),
        ...props,
      },
      global: { stubs: { RouterLink: { template: '<a><slot /></a>' } } },
      attachTo: document.body,
    });

  it('creates the link with the defaults and shows it with its copy button', async () => {
    const create = vi.fn(async () => link({ target: 'assets', asset_ids: [5], has_password: false, max_downloads: null }));
    const wrapper = mountDialog(create, { api: { create } });
    expect(wrapper.find('#share-expiry').element).toHaveProperty('value', '30d');
    expect(wrapper.findAll('#share-expiry option').map((o) => o.text())).not.toContain('Never expires');
    await wrapper.find('form').trigger('submit');
    await flushPromises();
    expect(create).toHaveBeenCalledWith({ workspaceId: 2, asset_ids: [5] });
    expect(wrapper.find('#share-created-url').element).toHaveProperty('value', link().url);
    expect(wrapper.text()).toContain('Copy link');
    expect(wrapper.emitted('created')).toHaveLength(1);
    wrapper.unmount();
  });

  it("starts a manager at the longest expiry the workspace's cap allows (issue #28)", async () => {
    const create = vi.fn(async () => link());
    const wrapper = mountDialog(create, { api: { create }, loadWorkspace: vi.fn(async () => ({ share_max_expiry_days: 7 })) });
    await flushPromises();
    expect(wrapper.findAll('#share-expiry option').map((o) => o.element.getAttribute('value'))).toEqual(['1d', '7d', 'date']);
    expect(wrapper.find('#share-expiry').element).toHaveProperty('value', '7d');
    expect(wrapper.text()).toContain('more than 7 days');
    wrapper.unmount();
  });

  it('pins the current version when asked', async () => {
    const create = vi.fn(async () => link({ target: 'version', version_id: 8 }));
    const wrapper = mountDialog(create, { api: { create }, pinnable: { versionId: 8, label: 'this version (v2)' } });
    expect(wrapper.text()).toContain('Keep showing this version (v2)');
    await wrapper.find('.pin input').setValue(true);
    await wrapper.find('form').trigger('submit');
    await flushPromises();
    expect(create).toHaveBeenCalledWith({ workspaceId: 2, version_id: 8 });
    wrapper.unmount();
  });

  it('shows a refusal as the API words it and marks the field it names', async () => {
    const wrapper = mountDialog(async () => {
      throw new ApiError('max_downloads: must be <= 1000000', 400, 'VALIDATION_ERROR', 'max_downloads');
    });
    await wrapper.find('input[type=checkbox]:not(:checked)').setValue(true);
    await wrapper.find('#share-max-downloads').setValue('7');
    await wrapper.find('form').trigger('submit');
    await flushPromises();
    expect(wrapper.find('[role=alert]').text()).toBe('max_downloads: must be <= 1000000');
    expect(wrapper.find('#share-max-downloads').attributes('aria-invalid')).toBe('true');
    expect(wrapper.emitted('created')).toBeUndefined();
    wrapper.unmount();
  });

  it('checks the form before asking: a password chosen but not typed', async () => {
    const create = vi.fn(async () => link());
    const wrapper = mountDialog(create, { api: { create } });
    await wrapper.find('#share-password-mode').setValue('set');
    await wrapper.find('form').trigger('submit');
    await flushPromises();
    expect(create).not.toHaveBeenCalled();
    expect(wrapper.find('[role=alert]').text()).toContain('Type the password');
    expect(wrapper.find('#share-password').attributes('aria-invalid')).toBe('true');
    wrapper.unmount();
  });
});

describe('suggestPassphrase (issue #28)', () => {
  it('draws four words with the random source, without bias over 256 distinct words', () => {
    expect(PASSPHRASE_WORDS).toHaveLength(256);
    expect(new Set(PASSPHRASE_WORDS).size).toBe(256);
    const fixed = suggestPassphrase((v) => v.map((_, i) => [0, 255, 256, 513][i]!));
    expect(fixed).toBe([PASSPHRASE_WORDS[0], PASSPHRASE_WORDS[255], PASSPHRASE_WORDS[0], PASSPHRASE_WORDS[1]].join(' '));
    const real = suggestPassphrase();
    expect(real.split(' ')).toHaveLength(4);
    expect(real.length).toBeGreaterThanOrEqual(8);
  });
});
