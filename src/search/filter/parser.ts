import { FilterError, type Condition, type FilterNode, type ListItem, type ValueText } from './ast.js';
import { tokenize, type Token } from './lexer.js';

/** Comparisons (one per list item) plus && and ||; more is a 400 (issue #4). */
export const MAX_OPERATORS = 100;
/** Nesting of parentheses. */
export const MAX_DEPTH = 32;

function describe(t: Token): string {
  switch (t.kind) {
    case 'end':
      return 'the end of the expression';
    case 'field':
    case 'value':
      return `"${t.text}"`;
    case 'operator':
      return `"${t.operator}"`;
    default:
      return `"${t.kind}"`;
  }
}

/**
 * Recursive descent over the tokens of lexer.ts into the AST of ast.ts.
 *
 * Precedence: Typesense evaluates && and || with equal precedence from left
 * to right, most languages bind && tighter; the seed always parenthesises.
 * Rather than silently pick one reading, a level that mixes && and || is
 * rejected, naming the position: `a && b || c` must be written
 * `(a && b) || c` or `a && (b || c)`. Chains of one operator need none.
 */
class Parser {
  private i = 0;
  private operators = 0;

  constructor(private readonly tokens: Token[]) {}

  parse(): FilterNode | null {
    if (this.peek().kind === 'end') return null;
    const node = this.expression(0);
    const rest = this.peek();
    if (rest.kind !== 'end') {
      const hint = rest.kind === ')' ? "a ')' without its '('" : describe(rest);
      throw new FilterError(`unexpected ${hint}`, rest.position);
    }
    return node;
  }

  private peek(): Token {
    return this.tokens[this.i]!;
  }

  private next(): Token {
    return this.tokens[this.i++]!;
  }

  private count(position: number): void {
    this.operators += 1;
    if (this.operators > MAX_OPERATORS) throw new FilterError(`more than ${MAX_OPERATORS} operators`, position);
  }

  private expression(depth: number): FilterNode {
    const first = this.term(depth);
    const head = this.peek();
    if (head.kind !== '&&' && head.kind !== '||') return first;
    const children = [first];
    for (let op = this.peek(); op.kind === '&&' || op.kind === '||'; op = this.peek()) {
      if (op.kind !== head.kind) {
        throw new FilterError(`&& and || cannot be mixed without parentheses: write (a && b) || c or a && (b || c)`, op.position);
      }
      this.next();
      this.count(op.position);
      children.push(this.term(depth));
    }
    return { type: head.kind === '&&' ? 'and' : 'or', position: head.position, children };
  }

  private term(depth: number): FilterNode {
    const t = this.next();
    if (t.kind === '(') {
      if (depth >= MAX_DEPTH) throw new FilterError(`parentheses nested deeper than ${MAX_DEPTH}`, t.position);
      const inner = this.expression(depth + 1);
      const close = this.next();
      if (close.kind !== ')') throw new FilterError(`expected ')' to close the '(' at position ${t.position}, found ${describe(close)}`, close.position);
      return inner;
    }
    if (t.kind === 'field') return this.condition(t.text, t.position);
    throw new FilterError(`expected a condition (field:value) or '(', found ${describe(t)}`, t.position);
  }

  private condition(field: string, position: number): Condition {
    const op = this.next();
    if (op.kind !== 'operator') throw new FilterError(`expected an operator after "${field}", found ${describe(op)}`, op.position);
    const base = { type: 'condition' as const, field, position, operator: op.operator, operatorPosition: op.position };
    const t = this.next();
    if (t.kind === 'value') {
      this.count(t.position);
      return { ...base, items: [{ kind: 'value', value: { text: t.text, position: t.position } }], isList: false };
    }
    if (t.kind !== '[') throw new FilterError(`expected a value after ${op.operator}, found ${describe(t)}`, t.position);
    const items: ListItem[] = [];
    for (;;) {
      items.push(this.item());
      const sep = this.next();
      if (sep.kind === ']') break;
      if (sep.kind !== ',') throw new FilterError(`expected ',' or ']' in the list opened at position ${t.position}, found ${describe(sep)}`, sep.position);
    }
    return { ...base, items, isList: true };
  }

  private item(): ListItem {
    const from = this.value('in the list');
    this.count(from.position);
    if (this.peek().kind !== '..') return { kind: 'value', value: from };
    this.next();
    return { kind: 'range', from, to: this.value("after '..'") };
  }

  private value(where: string): ValueText {
    const t = this.next();
    if (t.kind !== 'value') throw new FilterError(`expected a value ${where}, found ${describe(t)}`, t.position);
    return { text: t.text, position: t.position };
  }
}

/** Parses a filter expression; an empty or blank expression is no filter (null). Throws FilterError. */
export function parseFilter(text: string): FilterNode | null {
  return new Parser(tokenize(text)).parse();
}
