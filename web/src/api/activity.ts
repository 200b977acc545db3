import { requestData } from './http';
import type { ActivityPage } from './types';

export interface ActivityFilter {
  workspaceId: number;
  /** One asset's history (its versions included). */
  assetId?: number;
  userId?: number;
}

/** Issue #11: the activity log, newest first, paged by cursor (`before` = the previous page's next_before). */
export const activityApi = {
  list: (filter: ActivityFilter, before: number | null = null, limit = 20) =>
    requestData<ActivityPage>('GET', '/dam/activity', {
      query: { workspaceId: filter.workspaceId, asset_id: filter.assetId, user_id: filter.userId, before, limit },
    }),
};

export type ActivityApi = typeof activityApi;
