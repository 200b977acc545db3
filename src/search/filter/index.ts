import { appError } from '../../errors.js';
import { FilterError } from './ast.js';
import { bindFilter, type Predicate } from './bind.js';
import { parseFilter } from './parser.js';

export type { Predicate } from './bind.js';
export { FIELD_NAMES, FILTER_FIELDS } from './fields.js';
export { predicateSql } from './sql.js';
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
