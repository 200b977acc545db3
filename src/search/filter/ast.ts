/**
 * The filter grammar of seed 4.1 (Typesense's filter_by), as parsed:
 *
 *   expression := term (('&&' | '||') term)*      one kind of operator per level; see parser.ts
 *   term       := '(' expression ')' | condition
 *   condition  := field operator (value | '[' item (',' item)* ']')
 *   item       := value ('..' value)?             a range, numeric fields only
 *   operator   := ':=' | ':!=' | ':>' | ':>=' | ':<' | ':<=' | ':'
 *   value      := bare text | '`' any text but a backtick '`'
 *
 * Positions are 0-based character offsets into the expression.
 */
export type Operator = ':=' | ':!=' | ':>' | ':>=' | ':<' | ':<=' | ':';

export interface ValueText {
  readonly text: string;
  readonly position: number;
}

export type ListItem = { readonly kind: 'value'; readonly value: ValueText } | { readonly kind: 'range'; readonly from: ValueText; readonly to: ValueText };

export interface Condition {
  readonly type: 'condition';
  readonly field: string;
  readonly position: number;
  readonly operator: Operator;
  readonly operatorPosition: number;
  /** One item unless written as a list `[a, b..c]`. */
  readonly items: readonly ListItem[];
  readonly isList: boolean;
}

export interface Logical {
  readonly type: 'and' | 'or';
  readonly position: number;
  readonly children: readonly FilterNode[];
}

export type FilterNode = Condition | Logical;

/** A malformed or unsupported expression, with the offset where the problem is. */
export class FilterError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
    this.name = 'FilterError';
  }
}
