/** Area "activity": activity logs: the asset history and the workspace activity. English is the source of truth (web/src/i18n/README.md). */
export default {};
