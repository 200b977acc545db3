/** Area "billing": billing: plans, limits, banner. English is the source of truth (web/src/i18n/README.md). */
export default {};
