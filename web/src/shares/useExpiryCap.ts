import { ref, type Ref } from 'vue';
import { workspacesApi } from '../api/workspaces';

/**
 * A manager's cap on a shared link's expiry in this workspace (issue #28: share_max_expiry_days), for the
 * Share and edit dialogs; null for admins (not capped) and while unknown. A failed read leaves it null:
 * the server still refuses a later expiry, and the dialog shows its message.
 */
export function useExpiryCap(
  workspaceId: number,
  isAdmin: boolean,
  load: (id: number) => Promise<{ share_max_expiry_days: number }> = workspacesApi.get,
): Ref<number | null> {
  const cap = ref<number | null>(null);
  if (!isAdmin) {
    load(workspaceId)
      .then((ws) => {
        cap.value = ws.share_max_expiry_days;
      })
      .catch(() => undefined);
  }
  return cap;
}
