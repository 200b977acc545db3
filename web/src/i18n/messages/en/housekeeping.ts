/**
 * Area "housekeeping": the instance admin's page of held-back deletions (issue #37, /settings/housekeeping): sweeps that
 * would have deleted most of a workspace and wait for a confirmation. English is the source of truth (web/src/i18n/README.md).
 */
export default {
  title: 'Held-back deletions',
  subtitle: 'Housekeeping deletes expired trash, abandoned uploads and unused files on its own, a little at a time. A run that would delete most of a workspace stops and waits here for an instance admin.',
  onlyAdmins: 'Only instance admins see held-back deletions',
  loading: 'Loading held-back deletions…',
  error: 'The held-back deletions could not be loaded',
  none: 'Nothing is held back',
  noneHint: 'Every housekeeping run has stayed within its limits.',
  refresh: 'Refresh',
  sweeps: {
    trash: 'Expired trash',
    'stale-uploads': 'Abandoned uploads',
    'object-deletions': 'Files of deleted items',
    'orphaned-objects': 'Files nothing refers to',
  },
  sweepHints: {
    trash: 'Assets left in the trash longer than the retention period.',
    'stale-uploads': 'Uploads that were started and never finished.',
    'object-deletions': 'Stored files whose assets, versions or workspace were deleted.',
    'orphaned-objects': 'Stored files that no asset or version accounts for. If the store was swapped or emptied, do not confirm.',
  },
  states: {
    refused: 'Waiting for you',
    confirmed: 'Deleting',
    settled: 'Done',
  },
  workspace: 'Workspace {id}',
  share: 'Would delete {n} of {total} ({percent})',
  refusedAt: 'Held back {when}',
  seenAt: 'last checked {when}',
  confirmedAt: 'Confirmed {when}',
  settledAt: 'Finished {when}',
  details: 'What it would delete',
  examples: 'For example',
  confirm: 'Let it delete…',
  confirmTitle: 'Delete {n} item from {workspace}? | Delete {n} items from {workspace}?',
  confirmText: 'Housekeeping will delete this item within the next minutes, and nothing else: should it find more, it holds back again. This cannot be undone. | Housekeeping will delete these {n} items, a batch a minute, and nothing beyond them: should it find more, it holds back again. This cannot be undone.',
  confirmAction: 'Delete {n} item | Delete {n} items',
  confirmed: 'Housekeeping will delete {n} item of {workspace} | Housekeeping will delete {n} items of {workspace}',
  notWaiting: 'This deletion is no longer waiting; the list is up to date.',
};
