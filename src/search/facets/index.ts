/** Facet counts of a search (issue #12): fields.ts what can be counted, sql.ts how, repository.ts over what, counts.ts the answer. */
export { parseFacetJson, toFacetCounts, type FacetCounts } from './counts.js';
export { facetDialects, type FacetDialect } from './dialects.js';
export { FACET_NAMES, isCustomFacet, parseFacetBy, type FacetField, type FacetName } from './fields.js';
export { listedFacets, textFacets, type FacetResult, type ListedScope } from './repository.js';
export type { CustomFacet, FacetPlan, FacetRow } from './sql.js';
