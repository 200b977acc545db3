/** Area "shares": shared links: share dialog, settings, the shared links page, access log, the public share page. English is the source of truth (web/src/i18n/README.md). */
export default {};
