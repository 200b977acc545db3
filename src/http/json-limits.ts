/**
 * Limits of free-form JSON (asset and version `metadata`): how deep it nests, how many keys and
 * array items it holds in all, and how long it is as JSON. Checked without recursion, so a
 * value nested 100,000 levels deep (well under the 1 MiB body limit) is refused with a 400
 * instead of overflowing the stack wherever it is walked later (serialisation, merges).
 */
export interface JsonLimits {
  maxDepth: number;
  maxKeys: number;
  maxBytes: number;
}

export const METADATA_LIMITS: JsonLimits = Object.freeze({ maxDepth: 16, maxKeys: 1000, maxBytes: 64 * 1024 });

/** What is wrong with `value` under `limits` ("is nested more than 16 levels deep"), or undefined. */
export function jsonLimitViolation(value: unknown, limits: JsonLimits): string | undefined {
  let keys = 0;
  const stack: { node: unknown; depth: number }[] = [{ node: value, depth: 1 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > limits.maxDepth) return `is nested more than ${limits.maxDepth} levels deep`;
    const children = Array.isArray(node) ? node : Object.values(node);
    keys += children.length;
    if (keys > limits.maxKeys) return `holds more than ${limits.maxKeys} keys and array items in all`;
    for (const child of children) stack.push({ node: child, depth: depth + 1 });
  }
  // Depth is bounded now, so serialising cannot overflow the stack.
  const bytes = Buffer.byteLength(JSON.stringify(value) ?? '');
  if (bytes > limits.maxBytes) return `is ${bytes} bytes as JSON; at most ${limits.maxBytes} are allowed`;
  return undefined;
}
