import { connect } from 'node:net';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Document, Spectral, type RulesetDefinition } from '@stoplight/spectral-core';
import { Json } from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpTestApp, type TestApp } from './helpers/app.js';
import { ALLOWED_WARNINGS, type AllowedWarning } from './openapi-lint-allowed.js';

/**
 * Issue #38: /openapi.json is a contract that client generators read, so it passes two linters: Redocly's
 * `recommended` ruleset and Spectral's `oas` ruleset. No errors; a warning only when test/openapi-lint-allowed.ts
 * lists it with its reason, and every entry there must still occur. `npm run lint:openapi` runs this file.
 */

interface Finding {
  linter: AllowedWarning['linter'];
  severity: 'error' | 'warning';
  rule: string;
  /** The JSON pointer's segments, decoded and joined by spaces. */
  where: string;
  message: string;
}

const decodePointer = (pointer: string): string[] =>
  pointer
    .replace(/^#?\//, '')
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));

async function redoclyFindings(source: string): Promise<Finding[]> {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source, absoluteRef: '/openapi.json', config });
  return problems.map((p) => ({
    linter: 'redocly',
    severity: p.severity === 'error' ? 'error' : 'warning',
    rule: p.ruleId,
    where: decodePointer(p.location[0]?.pointer ?? '').join(' '),
    message: p.message,
  }));
}

async function spectralFindings(source: string): Promise<Finding[]> {
  const spectral = new Spectral();
  // The rules the oas ruleset recommends, as `extends: spectral:oas` gives them (its typing lags its shape).
  spectral.setRuleset({ extends: [[oas as RulesetDefinition, 'recommended']] });
  const results = await spectral.run(new Document(source, Json, '/openapi.json'));
  return results.map((r) => ({
    linter: 'spectral',
    // 0 error, 1 warn, 2 info, 3 hint: everything below an error is a warning to account for.
    severity: Number(r.severity) === 0 ? 'error' : 'warning',
    rule: String(r.code),
    where: r.path.map(String).join(' '),
    message: r.message,
  }));
}

const allows = (a: AllowedWarning, f: Finding) => a.linter === f.linter && a.rule === f.rule && (a.where === undefined || a.where.test(f.where));
const show = (f: Finding) => `${f.linter} ${f.rule} at ${f.where || '(document)'}: ${f.message}`;

/**
 * GET `path` with a header as large as Node refuses, over a raw socket: inject() has no header limit, and Node's
 * client reports the server closing the connection rather than the answer it read first.
 */
function withOversizedHeaders(baseUrl: string, path: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.end(`GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nX-Padding: ${'x'.repeat(17 * 1024)}\r\nConnection: close\r\n\r\n`);
    });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), body });
    });
  });
}

describe('/openapi.json passes Redocly (recommended) and Spectral (oas)', () => {
  let t: TestApp & { baseUrl: string };
  let source: string;
  let findings: Finding[];

  beforeAll(async () => {
    t = await startHttpTestApp();
    const res = await t.request({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    source = res.body;
    findings = [...(await redoclyFindings(source)), ...(await spectralFindings(source))];
  }, 60_000);
  afterAll(() => t?.close());

  it('has no errors', () => {
    expect(findings.filter((f) => f.severity === 'error').map(show)).toEqual([]);
  });

  it('has no warnings but those test/openapi-lint-allowed.ts lists', () => {
    const unlisted = findings.filter((f) => f.severity === 'warning' && !ALLOWED_WARNINGS.some((a) => allows(a, f)));
    expect(unlisted.map(show)).toEqual([]);
  });

  it('lists no allowance that no longer occurs', () => {
    const stale = ALLOWED_WARNINGS.filter((a) => !findings.some((f) => f.severity === 'warning' && allows(a, f)));
    expect(stale.map((a) => `${a.linter} ${a.rule} ${a.where ?? ''}`)).toEqual([]);
  });

  it('describes the servers and the licence: this instance at DAM_PUBLIC_URL, MIT', () => {
    const doc = JSON.parse(source) as { servers: { url: string }[]; info: { license: { name: string; identifier: string } } };
    expect(doc.servers.map((s) => s.url)).toEqual([t.config.publicUrl]);
    expect(doc.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
  });

  // The 4xx an operation without refusals of its own lists is true: a server answers it.
  it('answers 431 with the documented body wherever the document lists it', async () => {
    const doc = JSON.parse(source) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    const listed = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => op.responses['431'] !== undefined)
        .map(([method]) => ({ method, path })),
    );
    expect(listed.map((o) => `${o.method} ${o.path}`)).toEqual(
      expect.arrayContaining(['get /healthz', 'get /readyz', 'get /auth/social/config', 'get /auth/options', 'get /api/browser-os']),
    );
    for (const { method, path } of listed) {
      expect(method, path).toBe('get');
      const res = await withOversizedHeaders(t.baseUrl, path);
      expect(res.status, path).toBe(431);
      const body = JSON.parse(res.body) as Record<string, unknown>;
      expect(Object.keys(body).sort(), path).toEqual(['error', 'message', 'statusCode']);
      expect(body, path).toMatchObject({ error: 'Request Header Fields Too Large', statusCode: 431 });
      expect(typeof body.message, path).toBe('string');
    }
  });
});
