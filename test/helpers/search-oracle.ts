import { Buffer } from 'node:buffer';
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
  /** Embedded metadata (issue #12); absent: none (folders and collections never have any). */
  taken_at?: number | null;
  camera_make?: string | null;
  camera_model?: string | null;
  creator?: string | null;
  gps_lat?: number | null;
  gps_lon?: number | null;
  keywords?: string[];
}

/** The UTC year of Unix seconds, as the index computes it (years 1 to 9999). */
export function yearOf(seconds: number): number | null {
  if (seconds < -62_135_596_800 || seconds > 253_402_300_799) return null;
  return new Date(seconds * 1000).getUTCFullYear();
}

/** A nullable string as filters compare it: ASCII letters folded. */
const folded = (v: string | null | undefined) => (v == null ? null : foldAscii(v));

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
    case 'taken_at':
      return doc.taken_at ?? null;
    case 'camera_make_folded':
      return folded(doc.camera_make);
    case 'camera_model_folded':
      return folded(doc.camera_model);
    case 'creator_folded':
      return folded(doc.creator);
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
      const tags = (p.field.list?.table === 'search_keywords' ? (doc.keywords ?? []) : doc.tags).map(foldAscii);
      const hit = tags.some((t) => p.values.some((x) => (p.test === 'equals' ? t === x : t.includes(x))));
      return p.negate ? !hit : hit;
    }
    case 'geo': {
      const { south, west, north, east } = p.box;
      const lat = doc.gps_lat ?? null;
      const lon = doc.gps_lon ?? null;
      const inside = lat !== null && lon !== null && lat >= south && lat <= north && (west <= east ? lon >= west && lon <= east : lon >= west || lon <= east);
      return p.negate ? !inside : inside;
    }
    case 'collection': {
      const hit = doc.collections.some((c) => p.values.includes(c));
      return p.negate ? !hit : hit;
    }
  }
}

/**
 * The date-taken order (issue #12): dated documents by taken_at, then the undated, each with ties by id,
 * all in the order's direction.
 */
function byTaken(direction: 'asc' | 'desc') {
  const sign = direction === 'asc' ? 1 : -1;
  return (a: ModelDoc, b: ModelDoc) => {
    const [x, y] = [a.taken_at ?? null, b.taken_at ?? null];
    if ((x === null) !== (y === null)) return x === null ? 1 : -1;
    return sign * ((x ?? 0) - (y ?? 0) || a.id - b.id);
  };
}

/**
 * The ids the filter selects, newest first (modified_at desc, id desc), or in a `taken_at:asc|desc`
 * order; undefined when the filter is invalid.
 */
export function expectedIds(filter: string, docs: readonly ModelDoc[], sortBy?: string): number[] | undefined {
  let predicate: Predicate | null;
  try {
    const ast = parseFilter(filter);
    predicate = ast && bindFilter(ast);
  } catch {
    return undefined;
  }
  return docs
    .filter((d) => predicate === null || test(predicate, d))
    .sort(sortBy === 'taken_at:asc' || sortBy === 'taken_at:desc' ? byTaken(sortBy === 'taken_at:asc' ? 'asc' : 'desc') : (a, b) => b.modified_at - a.modified_at || b.id - a.id)
    .map((d) => d.id);
}

/** Facet counts as the API answers them (Typesense's facet_counts entries). */
export interface ModelFacet {
  counts: { count: number; highlighted: string; value: string }[];
  field_name: string;
  sampled: boolean;
  stats: { total_values: number };
}

/** UTF-8 byte order, as both databases compare the facet texts. */
const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** The values of one facet field a document has: [group key, value shown] pairs (issue #12). */
function facetValues(doc: ModelDoc, field: string): [string, string][] {
  const text = (v: string | null | undefined): [string, string][] => (v == null ? [] : [[foldAscii(v), v]]);
  switch (field) {
    case 'file_type':
      return [[doc.file_type, doc.file_type]];
    case 'orientation':
      return text(doc.orientation);
    case 'visibility':
      return [[String(doc.visibility), String(doc.visibility)]];
    case 'tags':
      return doc.tags.flatMap((t) => text(t));
    case 'camera_model':
      return text(doc.camera_model);
    case 'creator':
      return text(doc.creator);
    case 'taken_year': {
      const year = doc.taken_at == null ? null : yearOf(doc.taken_at);
      return year === null ? [] : [[String(year), String(year)]];
    }
    default:
      throw new Error(`no facet ${field}`);
  }
}

/**
 * The facet counts of the documents a filter selects, re-stated for the property test: per field,
 * documents per value (text grouped ASCII-folded, shown in its smallest spelling by bytes; a document
 * counts once per group), the `limit` most frequent, ties by value (numbers by number, text by
 * bytes), and the number of distinct values. Exact: the model's corpus is below the sample size.
 */
export function expectedFacets(filter: string, docs: readonly ModelDoc[], fields: readonly string[], limit: number): ModelFacet[] | undefined {
  const ids = expectedIds(filter, docs);
  if (!ids) return undefined;
  const selected = docs.filter((d) => ids.includes(d.id));
  return fields.map((field) => {
    const groups = new Map<string, { shown: string; docs: Set<number> }>();
    for (const doc of selected) {
      for (const [key, shown] of facetValues(doc, field)) {
        const g = groups.get(key) ?? { shown, docs: new Set<number>() };
        if (byBytes(shown, g.shown) < 0) g.shown = shown;
        g.docs.add(doc.id);
        groups.set(key, g);
      }
    }
    const numeric = field === 'visibility' || field === 'taken_year';
    const ranked = [...groups.values()]
      .map((g) => ({ value: g.shown, count: g.docs.size }))
      .sort((a, b) => b.count - a.count || (numeric ? Number(a.value) - Number(b.value) : byBytes(a.value, b.value)));
    return {
      counts: ranked.slice(0, limit).map((c) => ({ count: c.count, highlighted: c.value, value: c.value })),
      field_name: field,
      sampled: false,
      stats: { total_values: ranked.length },
    };
  });
}
