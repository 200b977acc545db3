import { bindFilter, foldAscii, type Predicate } from '../../src/search/filter/bind.js';
import { parseFilter } from '../../src/search/filter/parser.js';

/**
 * A reference evaluator of filters in plain JS, for the property test: the
 * server's SQL must select exactly the documents this says. It reuses the
 * server's parser and checker (their own tests are the table-driven ones) and
 * re-states the semantics of src/search/filter/sql.ts independently.
 */
export interface ModelDoc {
  id: number;
  file_type: string;
  orientation: string | null;
  visibility: number;
  created_at: number;
  modified_at: number;
  folder_id: number | null;
  tags: string[];
  /** The collections the asset belongs to. */
  collections: number[];
}

function columnValue(doc: ModelDoc, column: string | null): string | number | null {
  switch (column) {
    case 'ref_id':
      return doc.id;
    case 'file_type':
    case 'orientation':
    case 'visibility':
    case 'created_at':
    case 'modified_at':
    case 'folder_id':
      return doc[column];
    default:
      throw new Error(`no column ${column}`);
  }
}

function test(p: Predicate, doc: ModelDoc): boolean {
  switch (p.type) {
    case 'and':
      return p.children.every((c) => test(c, doc));
    case 'or':
      return p.children.some((c) => test(c, doc));
    case 'compare': {
      const v = columnValue(doc, p.field.column) as number | null;
      if (v === null) return false;
      return p.op === '>' ? v > p.value : p.op === '>=' ? v >= p.value : p.op === '<' ? v < p.value : v <= p.value;
    }
    case 'number': {
      const v = columnValue(doc, p.field.column) as number | null;
      if (v === null) return p.negate;
      const hit = p.values.includes(v) || p.ranges.some(([a, b]) => v >= a && v <= b);
      return p.negate ? !hit : hit;
    }
    case 'text': {
      const v = columnValue(doc, p.field.column) as string | null;
      if (v === null) return p.negate;
      const hit = p.values.some((x) => (p.test === 'equals' ? v === x : v.includes(x)));
      return p.negate ? !hit : hit;
    }
    case 'tags': {
      const tags = doc.tags.map(foldAscii);
      const hit = tags.some((t) => p.values.some((x) => (p.test === 'equals' ? t === x : t.includes(x))));
      return p.negate ? !hit : hit;
    }
    case 'collection': {
      const hit = doc.collections.some((c) => p.values.includes(c));
      return p.negate ? !hit : hit;
    }
  }
}

/** The ids the filter selects, newest first (modified_at desc, id desc); undefined when the filter is invalid. */
export function expectedIds(filter: string, docs: readonly ModelDoc[]): number[] | undefined {
  let predicate: Predicate | null;
  try {
    const ast = parseFilter(filter);
    predicate = ast && bindFilter(ast);
  } catch {
    return undefined;
  }
  return docs
    .filter((d) => predicate === null || test(predicate, d))
    .sort((a, b) => b.modified_at - a.modified_at || b.id - a.id)
    .map((d) => d.id);
}
