import { FilterError, type Operator } from './ast.js';

export type Token =
  | { kind: '(' | ')' | '[' | ']' | ',' | '..' | '&&' | '||' | 'end'; position: number }
  | { kind: 'field'; text: string; position: number }
  | { kind: 'operator'; operator: Operator; position: number }
  | { kind: 'value'; text: string; position: number };

// Longest first, so ':>=' is not read as ':>' followed by '='.
const OPERATORS: readonly Operator[] = [':!=', ':>=', ':<=', ':=', ':>', ':<', ':'];
const FIELD = /[A-Za-z_][A-Za-z0-9_.]*/y;
const WHITESPACE = /\s*/y;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
/** A bare value ends at whitespace, a bracket, a parenthesis, a comma, a backtick, && or ||; inside a list also at '..'. */
const BARE_VALUE = /(?:(?![\s()[\],`]|&&|\|\|).)+/y;
const BARE_LIST_VALUE = /(?:(?![\s()[\],`]|&&|\|\||\.\.).)+/y;

function describe(text: string, at: number): string {
  return at >= text.length ? 'the end of the expression' : `"${text.slice(at, at + 12)}"`;
}

/**
 * Splits a filter expression into tokens. The grammar is context-sensitive
 * (a value may contain ':' or '.'), so the lexer tracks where it is: after
 * an operator it reads a value or a list, otherwise fields, parentheses and
 * logical operators.
 */
export function tokenize(text: string): Token[] {
  // PostgreSQL text cannot hold NUL; no control character is meaningful in a filter.
  const control = CONTROL.exec(text);
  if (control) throw new FilterError('control characters are not allowed', control.index);
  const tokens: Token[] = [];
  let at = 0;
  let mode: 'condition' | 'operator' | 'value' | 'list' | 'after' = 'condition';

  const match = (re: RegExp): string | undefined => {
    re.lastIndex = at;
    const m = re.exec(text);
    return m && m[0].length > 0 ? m[0] : undefined;
  };
  const skipSpace = () => {
    at += match(WHITESPACE)?.length ?? 0;
  };
  const push = (token: Token, length: number) => {
    tokens.push(token);
    at += length;
  };
  const readValue = (list: boolean): boolean => {
    if (text[at] === '`') {
      const close = text.indexOf('`', at + 1);
      if (close < 0) throw new FilterError('unterminated backtick-quoted value', at);
      push({ kind: 'value', text: text.slice(at + 1, close), position: at }, close - at + 1);
      return true;
    }
    const bare = match(list ? BARE_LIST_VALUE : BARE_VALUE);
    if (bare === undefined) return false;
    push({ kind: 'value', text: bare, position: at }, bare.length);
    return true;
  };

  for (skipSpace(); at < text.length; skipSpace()) {
    const two = text.slice(at, at + 2);
    if (mode === 'condition' || mode === 'after') {
      const c = text[at];
      if (c === '(' || c === ')') {
        push({ kind: c, position: at }, 1);
        mode = c === '(' ? 'condition' : 'after';
      } else if (two === '&&' || two === '||') {
        push({ kind: two, position: at }, 2);
        mode = 'condition';
      } else if (mode === 'after') {
        throw new FilterError(`expected &&, || or ')' after a condition, found ${describe(text, at)}`, at);
      } else {
        const field = match(FIELD);
        if (field === undefined) throw new FilterError(`expected a field name, found ${describe(text, at)}`, at);
        push({ kind: 'field', text: field, position: at }, field.length);
        mode = 'operator';
      }
    } else if (mode === 'operator') {
      const operator = OPERATORS.find((op) => text.startsWith(op, at));
      if (!operator) throw new FilterError(`expected an operator (:=, :!=, :>, :>=, :<, :<=, :) after the field, found ${describe(text, at)}`, at);
      push({ kind: 'operator', operator, position: at }, operator.length);
      mode = 'value';
    } else if (mode === 'value') {
      if (text[at] === '[') {
        push({ kind: '[', position: at }, 1);
        mode = 'list';
      } else if (readValue(false)) {
        mode = 'after';
      } else {
        throw new FilterError(`expected a value, found ${describe(text, at)}`, at);
      }
    } else if (text[at] === ']') {
      push({ kind: ']', position: at }, 1);
      mode = 'after';
    } else if (text[at] === ',' || two === '..') {
      const kind = text[at] === ',' ? ',' : '..';
      push({ kind, position: at }, kind.length);
    } else if (!readValue(true)) {
      throw new FilterError(`expected a value, ',' or ']' in the list, found ${describe(text, at)}`, at);
    }
  }
  tokens.push({ kind: 'end', position: text.length });
  return tokens;
}
