import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox';
import { CHANGE_LIMITS } from '../domain/activity.js';
import { Envelope, ErrorBody, ok } from '../http/schemas.js';
import type { ActivityService } from '../services/activity-service.js';
import { ActivityPageSchema, ActivityQuery } from '../contracts/activity.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };

/** The activity log of a workspace (issue #11). */
export const activityRoutes: FastifyPluginCallbackTypebox<{ activity: ActivityService }> = (app, { activity }, done) => {
  app.get(
    '/dam/activity',
    {
      schema: {
        tags: ['activity'],
        summary: "A workspace's activity log, newest first (viewers and up)",
        description:
          'Every change to the workspace is recorded in the transaction that makes it, with who, when, what and the ' +
          'before/after of the fields that changed: uploads (asset.upload), new versions (version.upload), restores ' +
          '(version.restore), version deletions, asset edits (asset.update: display name, tags, visibility, metadata), moves ' +
          '(asset.move, folder.move: the folder_id / parent_id), deletions, folder and collection creation, edits (a rename is ' +
          '*.update with changes.name) and deletion, collection membership (asset_ids that entered or left), members added ' +
          'or removed (changes.role), role changes and workspace renames. A change that is refused or rolled back leaves no entry; ' +
          'a change that changes nothing (a PATCH with the current values) records none. File contents and secrets are never ' +
          `recorded; values over ${CHANGE_LIMITS.valueChars} characters are cut. ` +
          'asset_id narrows to one asset\'s history (its versions included), user_id to one user\'s changes. Paged by cursor: ' +
          'pass the answer\'s next_before as `before` for the next page (pages never overlap or skip entries written before ' +
          'the first page was read). Not a member of the workspace: 404.',
        querystring: ActivityQuery,
        response: { 200: Envelope(ActivityPageSchema), ...errors },
      },
    },
    async (req) => ok(await activity.list(req.caller, req.query)),
  );
  done();
};
