import { reactive } from 'vue';
import { drivesApi, type DriveProvider, type DriveProviderId, type DrivesApi } from '../api/drives';
import { ApiError } from '../api/http';
import { session } from '../stores/session';
import { errorText } from '../stores/toasts';

/**
 * GET /drives, once per signed-in user and page load (the library's sidebar shows a Drives entry only when
 * the server has configured a drive; the asset page offers "Send to drive" then). The Drives page reads it
 * again on every visit; a connection found to need re-authorisation is marked here at once.
 */
interface DrivesState {
  providers: DriveProvider[];
  /** The user the answer is for (another user signing in in this tab asks again). */
  userId: number | null;
  loaded: boolean;
  loading: boolean;
  error: string | null;
}

export const drives = reactive<DrivesState>({ providers: [], userId: null, loaded: false, loading: false, error: null });

let pending: Promise<void> | undefined;
let generation = 0;

export function loadDrives(options: { force?: boolean; api?: Pick<DrivesApi, 'list'> } = {}): Promise<void> {
  const userId = session.user?.id ?? null;
  if (!options.force && drives.loaded && drives.userId === userId) return Promise.resolve();
  if (pending && !options.force) return pending;
  const api = options.api ?? drivesApi;
  const mine = ++generation;
  drives.loading = true;
  pending = (async () => {
    try {
      const { providers } = await api.list();
      if (mine === generation) Object.assign(drives, { providers, userId, loaded: true, error: null });
    } catch (err) {
      if (mine !== generation) return;
      // A server from before drives has no /drives: the same as none configured.
      if (err instanceof ApiError && err.status === 404) Object.assign(drives, { providers: [], userId, loaded: true, error: null });
      else drives.error = errorText(err);
    } finally {
      if (mine === generation) {
        pending = undefined;
        drives.loading = false;
      }
    }
  })();
  return pending;
}

export function providerOf(id: DriveProviderId): DriveProvider | undefined {
  return drives.providers.find((p) => p.id === id);
}

/** A drive operation answered 409 DRIVE_REAUTH_REQUIRED (or DRIVE_NOT_CONNECTED): the page shows it at once. */
export function markConnection(id: DriveProviderId, state: 'reauth_required' | 'gone', note: string | null = null): void {
  const provider = providerOf(id);
  if (!provider) return;
  if (state === 'gone') provider.connection = null;
  else if (provider.connection) Object.assign(provider.connection, { status: 'reauth_required', status_note: note ?? provider.connection.status_note });
}

/** Forgets the answer (tests; a sign-out is noticed by the user id). */
export function resetDrives(): void {
  generation += 1;
  pending = undefined;
  Object.assign(drives, { providers: [], userId: null, loaded: false, loading: false, error: null });
}
