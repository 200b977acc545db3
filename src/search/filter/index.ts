import { appError } from '../../errors.js';
import { FilterError } from './ast.js';
import { bindFilter, resolveCustomFields, type Predicate } from './bind.js';
import type { CustomCatalogue } from './custom.js';
import { parseFilter } from './parser.js';

export type { Predicate } from './bind.js';
export { FIELD_NAMES, FILTER_FIELDS } from './fields.js';
export { predicateSql } from './sql.js';
export { customKeys } from './bind.js';
export type { CustomCatalogue, CustomFieldSpec } from './custom.js';
export { requiredWords, type RequiredWords } from './pushdown.js';

/**
 * Parses and checks a filter expression (seed 4.1). A blank expression is no
 * filter. Problems are 400 VALIDATION_ERROR naming the request field and the
 * 0-based position in the expression, e.g.
 * `filterQuery.digital_assets: unknown field "colour" (position 0)`.
 */
export function compileFilter(text: string | undefined, requestField: string): Predicate | null {
  if (text === undefined) return null;
  try {
    const ast = parseFilter(text);
    return ast && bindFilter(ast);
  } catch (err) {
    if (!(err instanceof FilterError)) throw err;
    throw appError('VALIDATION_ERROR', `${requestField}: ${err.message} (position ${err.position})`, { field: requestField, position: err.position });
  }
}

/**
 * Issue #30: the filter's fields.<key> conditions checked against the searched workspaces' fields; a problem is 400
 * VALIDATION_ERROR naming the request field and the position, as compileFilter's.
 */
export function bindCustomFields(p: Predicate, catalogue: CustomCatalogue, requestField: string): Predicate {
  try {
    return resolveCustomFields(p, catalogue);
  } catch (err) {
    if (!(err instanceof FilterError)) throw err;
    throw appError('VALIDATION_ERROR', `${requestField}: ${err.message} (position ${err.position})`, { field: requestField, position: err.position });
  }
}
