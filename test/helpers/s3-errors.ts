import { expect } from 'vitest';

/** The elements of an S3 error document, `<Error><Code>…</Code>…</Error>`, unescaped, by name. */
export function s3ErrorFields(xml: string): Record<string, string> {
  expect(xml).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<Error>(<(\w+)>[^<]*<\/\2>)+<\/Error>$/);
  const unescape = (text: string) =>
    text.replace(/&(lt|gt|quot|apos|amp);/g, (_, name: string) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[name]!);
  return Object.fromEntries([...xml.matchAll(/<(\w+)>([^<]*)<\/\1>/g)].filter(([, name]) => name !== 'Error').map(([, name, text]) => [name!, unescape(text!)]));
}

/**
 * Checks that a refusal of a part URL is an S3 error document (issue #38) with this status and code, whose message
 * mentions `mentions`; answers its elements.
 */
export async function expectS3Error(res: Response, status: number, code: string, mentions?: string): Promise<Record<string, string>> {
  const text = await res.text();
  expect({ status: res.status, type: res.headers.get('content-type') }, text).toEqual({ status, type: 'application/xml' });
  const fields = s3ErrorFields(text);
  expect(fields.Code).toBe(code);
  expect(fields.Message).toBeTruthy();
  if (mentions !== undefined) expect(fields.Message).toContain(mentions);
  expect(fields.RequestId).toBeTruthy();
  expect(fields.RequestId).toBe(res.headers.get('x-amz-request-id'));
  return fields;
}
