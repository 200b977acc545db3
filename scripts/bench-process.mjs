// Child processes for the benchmarks that run the built server in a process of its own
// (bench-upload.mjs, bench-zip.mjs): start it on SQLite and the local store, watch its memory, stop it.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
// Node globals, imported so the file lints without a globals config.
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { clearTimeout, setTimeout } from 'node:timers';

/** A free loopback port (released just before the server binds it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Keeps the last `limit` characters a child wrote, to show when it fails. */
export function tail(stream, limit = 16_384) {
  const box = { text: '' };
  stream?.setEncoding('utf8');
  stream?.on('data', (chunk) => {
    box.text = (box.text + chunk).slice(-limit);
  });
  return box;
}

export function stopChild(child, children, graceMs = 12_000) {
  children.delete(child);
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** The status of GET `url`, or an error when nothing answers within `timeoutMs`. */
function getStatus(url, timeoutMs) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', reject);
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`GET ${url}: no answer in ${timeoutMs} ms`)));
  });
}

/**
 * Starts `entry` (dist/server.js) on 127.0.0.1:`port` with its state in `dataDir` (SQLite, local store,
 * registration open, no DAM_* setting of the caller's environment), plus `env`, and waits for /healthz.
 */
export async function startServer({ entry, cwd, dataDir, port, env: extra = {} }, children) {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('DAM_') || k === 'DATABASE_URL') delete env[k];
  Object.assign(env, {
    NODE_ENV: 'production',
    PORT: String(port),
    HOST: '127.0.0.1',
    DAM_DATA_DIR: dataDir,
    DATABASE_URL: `sqlite:${path.join(dataDir, 'dam.sqlite')}`,
    DAM_PUBLIC_URL: `http://127.0.0.1:${port}`,
    DAM_STORAGE: 'local',
    DAM_ALLOW_REGISTRATION: 'true',
    LOG_LEVEL: 'warn',
    ...extra,
  });
  // DAM_BENCH_NODE_ARGS: extra node flags for the server, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it under load.
  const nodeArgs = (process.env.DAM_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, entry], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const out = tail(child.stdout);
  const err = tail(child.stderr);
  const logs = () => `${out.text}${err.text}`.trim();
  const base = `http://127.0.0.1:${port}`;
  const deadline = performance.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode} while starting:\n${logs()}`);
    try {
      if ((await getStatus(`${base}/healthz`, 2000)) === 200) break;
    } catch {
      // not listening yet
    }
    if (performance.now() > deadline) throw new Error(`the server did not answer /healthz within 60 s:\n${logs()}`);
    await sleep(100);
  }
  return { child, base, logs };
}

/** Reads VmRSS and VmHWM (bytes) of a process from /proc (Linux). */
export function procMemory(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) * 1024;
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return undefined;
  }
}

/** Resets VmHWM to the current RSS (Linux >= 4.0, own process), so it then reads the peak from here on. */
export function resetPeak(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/**
 * CPU time (ms, user + system) of a process so far, from /proc (Linux): `main` is its main thread (the event loop),
 * `others` every other thread together (libuv's pool doing file writes and fsyncs, V8's helpers); undefined elsewhere.
 */
export function procCpu(pid) {
  try {
    const hz = 100; // USER_HZ: clock ticks per second of /proc's times on Linux
    const ticks = (file) => {
      const fields = readFileSync(file, 'utf8').replace(/^.*\) /s, '').split(' ');
      return Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
    };
    let others = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      if (Number(tid) === pid) continue;
      try {
        others += ticks(`/proc/${pid}/task/${tid}/stat`);
      } catch {
        // the thread ended meanwhile
      }
    }
    return { main: (ticks(`/proc/${pid}/task/${pid}/stat`) * 1000) / hz, others: (others * 1000) / hz };
  } catch {
    return undefined;
  }
}
