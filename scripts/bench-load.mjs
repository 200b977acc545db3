#!/usr/bin/env node
// `npm run bench:load` (issue #18): the per-request cost of authenticated reads under load.
// Starts API processes of the built server (dist/server.js) on PostgreSQL (or SQLite with --db sqlite),
// seeds one workspace, then loads GET /auth/me, GET /dam/assets and a selective POST /search-engine/search,
// each at --connections for --duration seconds, through one process and through two (half the connections
// on each port), beside a bare Fastify hello-world measured in the same run. Any error or non-2xx answer
// makes the run fail (exit 1).
//
//   npm run bench:load -- [--duration 20] [--connections 64] [--db postgres|sqlite] [--processes 1cpu,1,2]
//                         [--assets 20] [--tool wrk|autocannon] [--only auth-me,assets,search,healthz] [--skip-build]
//
// The PostgreSQL database (DAM_BENCH_DATABASE_URL, default postgres://dam_ci:dam_ci@127.0.0.1:5432/dam_bench)
// is WIPED (schema public dropped and recreated): its name must contain "bench".
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import SQLite from 'better-sqlite3';
import { freePort, startServer, stopChild, tail } from './bench-process.mjs';
import { ASSET_COLUMNS, assetValues, prng, sortKey } from './bench-search-data.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: opts } = parseArgs({
  options: {
    duration: { type: 'string', default: process.env.DAM_BENCH_DURATION ?? '20' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '64' },
    db: { type: 'string', default: 'postgres' },
    // "1cpu": one process sharing one CPU with wrk (taskset), beside the hello-world measured the same way (see ONE_CPU).
    processes: { type: 'string', default: '1cpu,1,2' },
    assets: { type: 'string', default: '20' },
    tool: { type: 'string', default: spawnSync('wrk', ['--version']).error ? 'autocannon' : 'wrk' },
    only: { type: 'string', default: 'healthz,auth-me,assets,search' },
    'skip-build': { type: 'boolean', default: false },
  },
});
const DURATION = Number(opts.duration);
const WARMUP = Number(opts.warmup);
const CONNECTIONS = Number(opts.connections);
const MODES = opts.processes.split(',').map((m) => ({ label: m, pinned: m === '1cpu', count: m === '1cpu' ? 1 : Number(m) }));
/**
 * "1cpu" rows: the server and wrk pinned to CPU 0 (taskset). Unpinned, on a machine with few CPUs, every answer of a
 * route slower than the client wakes wrk's sleeping thread on the other CPU (an inter-processor interrupt, a VM exit
 * on a virtual machine), in the server's writev: perf shows it in sock_def_readable, about 15 us of system time per
 * answer on a 2-vCPU VM, which the hello-world (whose client never sleeps) does not pay. On one CPU that wake-up is a
 * local one, as waking a client across a network is not the server's cost at all; what is measured is the server's work.
 */
const ONE_CPU = '0';
const ASSETS = Number(opts.assets);
const ONLY = new Set(opts.only.split(','));
const PG_URL = process.env.DAM_BENCH_DATABASE_URL ?? 'postgres://dam_ci:dam_ci@127.0.0.1:5432/dam_bench';
// Another build of the server to measure (e.g. an older commit's, to compare before and after a change).
const ENTRY = path.resolve(process.env.DAM_BENCH_ENTRY ?? path.join(root, 'dist', 'server.js'));
const JWT_SECRET = 'bench-load-secret-0123456789abcdef0123456789abcdef';
const NOW = Math.floor(Date.now() / 1000);

const children = new Set();
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'dam-bench-load-'));
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

/** The bench database, emptied. Refuses a database whose name does not say it is a bench database. */
async function wipePostgres() {
  const name = new URL(PG_URL).pathname.slice(1);
  if (!/bench/i.test(name)) throw new Error(`refusing to wipe database "${name}": its name must contain "bench"`);
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query('DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public');
  await client.end();
}

/** `count` assets, by SQL in the server's own tables (the catalog's triggers index them for search). */
async function seedAssets(workspaceId) {
  const r = prng(42);
  const m = prng(43);
  const rows = Array.from({ length: ASSETS }, (_, i) => {
    const values = assetValues(r, m, NOW, workspaceId, [null]);
    // One in ten is a sunset: the selective search finds a handful, not the whole workspace.
    const name = i % 10 === 0 ? `sunset-${i}.jpg` : `photo-${i}.jpg`;
    values[ASSET_COLUMNS.indexOf('display_file_name')] = name;
    values[ASSET_COLUMNS.indexOf('file_name')] = name;
    values[ASSET_COLUMNS.indexOf('name_key')] = sortKey(name);
    values[ASSET_COLUMNS.indexOf('folder_id')] = null;
    return values;
  });
  const placeholders = (n, offset = 0) => Array.from({ length: n }, (_, i) => `$${i + 1 + offset}`).join(', ');
  if (opts.db === 'sqlite') {
    const db = new SQLite(path.join(dataDir, 'dam.sqlite'));
    const insert = db.prepare(`INSERT INTO assets (${ASSET_COLUMNS.join(', ')}) VALUES (${ASSET_COLUMNS.map(() => '?').join(', ')})`);
    db.transaction(() => rows.forEach((v) => insert.run(v)))();
    db.close();
    return;
  }
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  for (const v of rows) await client.query(`INSERT INTO assets (${ASSET_COLUMNS.join(', ')}) VALUES (${placeholders(v.length)})`, v);
  await client.end();
}

/** A bare Fastify hello-world in a process of its own: the ceiling of this machine, measured in the same run. */
async function startHelloWorld(port) {
  const code = `
    const app = require('fastify')();
    app.get('/', async () => ({ hello: 'world' }));
    app.listen({ port: ${port}, host: '127.0.0.1' }).then(() => console.log('listening'));`;
  const child = spawn(process.execPath, ['-e', code], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const out = tail(child.stdout);
  for (let i = 0; i < 100 && !out.text.includes('listening'); i += 1) await sleep(50);
  if (!out.text.includes('listening')) throw new Error('the hello-world process did not start');
  return { child, base: `http://127.0.0.1:${port}` };
}

async function call(base, method, url, token, body) {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${url} answered ${res.status}: ${await res.text()}`);
  return res.json();
}

/** wrk (C, one thread per core would steal the servers' CPU: one thread) with a Lua script for method, headers and body. */
function loadWithWrk(url, { method, headers, body }, connections, duration = DURATION, pinned = false) {
  const script = path.join(dataDir, `wrk-${Math.random().toString(36).slice(2)}.lua`);
  const lines = [`wrk.method = ${JSON.stringify(method)}`];
  for (const [k, v] of Object.entries(headers)) lines.push(`wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`);
  if (body) lines.push(`wrk.body = ${JSON.stringify(body)}`);
  writeFileSync(script, `${lines.join('\n')}\n`);
  return new Promise((resolve, reject) => {
    const args = ['-t1', `-c${connections}`, `-d${duration}s`, '--latency', '-s', script, url];
    const child = pinned ? spawn('taskset', ['-c', ONE_CPU, 'wrk', ...args], { stdio: ['ignore', 'pipe', 'pipe'] }) : spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out = tail(child.stdout);
    const err = tail(child.stderr);
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`wrk exited with ${code}: ${err.text}`));
      const text = out.text;
      const num = (re) => Number(re.exec(text)?.[1] ?? 0);
      const p99 = /99%\s+([\d.]+)(us|ms|s)/.exec(text);
      const p99ms = p99 ? Number(p99[1]) * { us: 0.001, ms: 1, s: 1000 }[p99[2]] : NaN;
      const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
      const errors = num(/Non-2xx or 3xx responses: (\d+)/) + (socketErrors ? socketErrors.slice(1).reduce((s, n) => s + Number(n), 0) : 0);
      resolve({ rps: num(/Requests\/sec:\s+([\d.]+)/), p99: p99ms, errors, requests: num(/(\d+) requests in/) });
    });
  });
}

async function loadWithAutocannon(url, { method, headers, body }, connections, duration = DURATION) {
  const result = await autocannon({ url, method, headers, body, connections, duration });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.timeouts + result.non2xx, requests: result.requests.total };
}

/** CPU time (user + system) a process has used, in ms, from /proc (Linux; NaN elsewhere). */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
    // utime and stime are fields 14 and 15 of stat(5), in clock ticks (100 per second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return NaN;
  }
}

/**
 * A KVM guest's halt-polling window (cpuidle-haltpoll), or undefined elsewhere. With it off (0; the kernel's default
 * is 200000), an idle vCPU halts at once, and waking a thread on it (wrk, between answers) costs the waker an
 * inter-processor interrupt and a VM exit: on a 2-vCPU VM, about 15 us of system time in every answer's writev
 * for a route slower than wrk, which the hello-world (whose client never idles) does not pay. The unpinned rows
 * depend on it; the 1cpu rows do not. Printed so that figures from different machines can be compared.
 */
function guestHaltPollNs() {
  try {
    return Number(readFileSync('/sys/module/haltpoll/parameters/guest_halt_poll_ns', 'utf8'));
  } catch {
    return undefined;
  }
}

function runTool() {
  return opts.tool === 'wrk' ? loadWithWrk : loadWithAutocannon;
}

/**
 * One request shape against one or more processes at once, the connections split evenly; req/s summed,
 * worst p99, and the servers' CPU per request (which, unlike req/s, does not depend on what else the
 * machine is running: the per-request cost itself).
 */
async function load(targets, urlPath, request, pinned = false) {
  const per = Math.max(1, Math.floor(CONNECTIONS / targets.length));
  const run = runTool();
  // Every thread of the server (V8's compiler and GC threads too) on the CPU wrk is pinned to, for this load only.
  const affinity = (cpus) => targets.forEach((t) => spawnSync('taskset', ['-a', '-pc', cpus, String(t.child.pid)], { stdio: 'ignore' }));
  if (pinned) affinity(ONE_CPU);
  // Warm-up, not counted: this shape's own paths compile (V8 does it on threads of its own, billed to the process)
  // and the process settles on its new CPU affinity before the count starts.
  if (WARMUP > 0) await Promise.all(targets.map((t) => run(`${t.base}${urlPath}`, request, per, WARMUP, pinned)));
  const cpuBefore = targets.map((t) => cpuMs(t.child.pid));
  const results = await Promise.all(targets.map((t) => run(`${t.base}${urlPath}`, request, per, DURATION, pinned)));
  const cpu = targets.reduce((sum, t, i) => sum + cpuMs(t.child.pid) - cpuBefore[i], 0);
  if (pinned) affinity(`0-${os.cpus().length - 1}`);
  const requests = results.reduce((s, r) => s + r.requests, 0);
  return {
    rps: results.reduce((s, r) => s + r.rps, 0),
    p99: Math.max(...results.map((r) => r.p99)),
    errors: results.reduce((s, r) => s + r.errors, 0),
    cpuUs: requests > 0 ? (cpu * 1000) / requests : NaN,
  };
}

async function main() {
  console.log(`bench:load  db=${opts.db}  tool=${opts.tool}  ${CONNECTIONS} connections x ${DURATION} s  ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'})`);
  const haltPoll = guestHaltPollNs();
  if (haltPoll !== undefined) console.log(`guest halt-polling: ${haltPoll} ns${haltPoll === 0 ? ' (off: waking an idle vCPU is an interrupt and a VM exit, paid in the server\'s writev; see guestHaltPollNs)' : ''}`);
  if (opts.db !== 'sqlite') await wipePostgres();
  if (!opts['skip-build'] && !process.env.DAM_BENCH_ENTRY) {
    const build = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: root, encoding: 'utf8' });
    if (build.status !== 0) throw new Error(`build failed:\n${build.stdout}${build.stderr}`);
  }

  const env = {
    DAM_ROLE: 'api',
    DAM_JWT_SECRET: JWT_SECRET,
    DAM_JOB_CONCURRENCY: '0',
    // One user sends every request: the per-user limit must not shape the measurement.
    DAM_USER_RATE_LIMIT: '100000000',
    ...(opts.db === 'sqlite' ? {} : { DATABASE_URL: PG_URL }),
  };
  if (MODES.some((m) => m.pinned) && (opts.tool !== 'wrk' || spawnSync('taskset', ['-V']).error)) {
    throw new Error('--processes 1cpu needs wrk and taskset (util-linux)');
  }
  const maxProcesses = Math.max(...MODES.map((m) => m.count));
  const servers = [];
  for (let i = 0; i < maxProcesses; i += 1) {
    servers.push(await startServer({ entry: ENTRY, cwd: path.dirname(path.dirname(ENTRY)), dataDir, port: await freePort(), env }, children));
  }
  const hello = await startHelloWorld(await freePort());

  const reg = await call(servers[0].base, 'POST', '/auth/register', undefined, { email: 'bench@example.com', password: 'bench-password-1', name: 'Bench' });
  const session = reg.data ?? reg;
  const token = session.token;
  const workspaceId = session.workspaces[0].id;
  await seedAssets(workspaceId);
  const auth = { authorization: `Bearer ${token}` };
  const shapes = [
    ['healthz', 'GET /healthz', '/healthz', { method: 'GET', headers: {} }],
    ['auth-me', 'GET /auth/me', '/auth/me', { method: 'GET', headers: auth }],
    ['assets', `GET /dam/assets (${ASSETS} assets)`, `/dam/assets?workspaceId=${workspaceId}`, { method: 'GET', headers: auth }],
    [
      'search',
      'POST /search-engine/search (selective)',
      '/search-engine/search',
      {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ request: { q: 'sunset', collections: ['digital_assets'] } }),
      },
    ],
  ].filter(([key]) => ONLY.has(key));
  // Every shape answers 2xx before the load starts (a wrong body would otherwise be measured as errors only).
  for (const [, , url, r] of shapes) {
    const res = await fetch(`${servers[0].base}${url}`, { method: r.method, headers: r.headers, body: r.body });
    if (!res.ok) throw new Error(`${r.method} ${url} answered ${res.status}: ${await res.text()}`);
  }

  // Every process runs every shape once before anything is measured, so that V8's first compilation of the shared
  // paths (Fastify's, the hooks') is billed to no shape. (It did not remove the spread of /healthz between runs,
  // 0.70x to 0.92x of the hello-world on this VM: that is noise of the machine.)
  if (WARMUP > 0) {
    for (const [, , url, request] of shapes) {
      await Promise.all(servers.map((s) => runTool()(`${s.base}${url}`, request, Math.max(1, Math.floor(CONNECTIONS / servers.length)), WARMUP)));
    }
  }
  // The hello-world measured each way a row is: its ratios are against the hello-world of its own mode.
  const baselines = {};
  const rows = [];
  for (const pinned of new Set(MODES.map((m) => m.pinned))) {
    baselines[pinned] = await load([hello], '/', { method: 'GET', headers: {} }, pinned);
    rows.push(['hello-world (bare Fastify)', pinned ? '1cpu' : '1', baselines[pinned], pinned]);
  }
  for (const [, label, url, request] of shapes) {
    for (const mode of MODES) {
      rows.push([label, mode.label, await load(servers.slice(0, mode.count), url, request, mode.pinned), mode.pinned]);
    }
  }

  const pad = (s, n) => String(s).padEnd(n);
  console.log(`\n${pad('request', 40)}${pad('procs', 7)}${pad('req/s', 10)}${pad('p99 ms', 9)}${pad('x hello', 9)}${pad('CPU us/req', 12)}${pad('x hello', 9)}errors`);
  for (const [label, n, r, pinned] of rows) {
    const baseline = baselines[pinned];
    const cpuRatio = (baseline.cpuUs / r.cpuUs).toFixed(2);
    console.log(
      `${pad(label, 40)}${pad(n, 7)}${pad(Math.round(r.rps), 10)}${pad(r.p99.toFixed(1), 9)}${pad((r.rps / baseline.rps).toFixed(2), 9)}` +
        `${pad(r.cpuUs.toFixed(0), 12)}${pad(cpuRatio, 9)}${r.errors}`,
    );
  }
  console.log('x hello: req/s against the hello-world\'s; CPU x hello: the hello-world\'s CPU per request against this one\'s (1.00: as cheap).');
  if (MODES.some((m) => m.pinned)) console.log('procs 1cpu: the process and wrk pinned to one CPU, against the hello-world pinned the same way (no cross-CPU wake-up of wrk per answer).');
  const errors = rows.reduce((s, [, , r]) => s + r.errors, 0);
  await Promise.all([...children].map((c) => stopChild(c, children)));
  if (errors > 0) {
    console.error(`\n${errors} request(s) failed (errors, timeouts or non-2xx answers): the run fails`);
    process.exit(1);
  }
}

main().catch(async (err) => {
  console.error(err instanceof Error ? err.message : err);
  await Promise.all([...children].map((c) => stopChild(c, children, 2000)));
  process.exit(1);
});
