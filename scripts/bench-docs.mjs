#!/usr/bin/env node
// `npm run bench:docs` (issue #27): how long /docs takes in Debian's chromium until operations are on screen, as served
// (one tag's part of the OpenAPI document, src/http/openapi.ts), beside the same swagger-ui on the whole document
// (the baseline: what /docs loaded before). Target: under 2 s. Cold = a new browser context (nothing cached).
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { freePort, startServer, stopChild } from './bench-process.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = Number(process.env.DAM_BENCH_ROUNDS ?? 5);
const children = new Set();
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'dam-bench-docs-'));

/** Milliseconds from navigation until swagger-ui shows at least one operation. */
async function timeToOperations(browser, url) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const started = Date.now();
  await page.goto(url);
  await page.waitForSelector('.opblock', { timeout: 180_000 });
  const ms = Date.now() - started;
  await context.close();
  return ms;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

try {
  const port = await freePort();
  const { base } = await startServer({ entry: path.join(ROOT, 'dist', 'server.js'), cwd: ROOT, dataDir, port }, children);
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
  // The baseline: the same swagger-ui bundle (served by /docs) on the whole document, as /docs loaded it before,
  // from a page of this script's own on another loopback port (the API's CORS is open).
  const page = `<!doctype html><html><head><link rel="stylesheet" href="${base}/docs/static/swagger-ui.css"></head><body><div id="ui"></div>
<script src="${base}/docs/static/swagger-ui-bundle.js"></script>
<script>SwaggerUIBundle({ url: '${base}/openapi.json', dom_id: '#ui', docExpansion: 'list' });</script></body></html>`;
  const baseline = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page));
  const baselinePort = await freePort();
  await new Promise((resolve) => baseline.listen(baselinePort, '127.0.0.1', resolve));
  const whole = `http://127.0.0.1:${baselinePort}/`;
  const rows = [];
  for (const [name, url] of [
    ['/docs as served (one tag)', `${base}/docs`],
    ['whole document (baseline)', whole],
  ]) {
    const times = [];
    for (let i = 0; i < ROUNDS; i++) times.push(await timeToOperations(browser, url));
    rows.push({ name, times, median: median(times) });
  }
  await browser.close();
  baseline.close();
  console.log(`| page | median ms | rounds (ms) |\n|---|---|---|`);
  for (const r of rows) console.log(`| ${r.name} | ${r.median} | ${r.times.join(', ')} |`);
} finally {
  for (const child of [...children]) await stopChild(child, children);
  rmSync(dataDir, { recursive: true, force: true });
}
