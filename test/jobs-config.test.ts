import { chmodSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { retryDelay } from '../src/jobs/backoff.js';
import { locateFfmpeg } from '../src/media/ffmpeg.js';
import { tempDir } from './helpers/databases.js';

const env = (vars: Record<string, string> = {}) => ({ DAM_DATA_DIR: tempDir('dam-config-'), DAM_JWT_SECRET: 'a-secret-that-is-long-enough-0123456789', ...vars });

describe('job and media settings', () => {
  it('defaults: one job per core, polling every second, 5-minute leases, 5 attempts from 10 s, hour-long media URLs', () => {
    const config = loadConfig(env());
    expect(config.jobs).toEqual({ concurrency: availableParallelism(), pollIntervalMs: 1000, leaseSeconds: 300, maxAttempts: 5, retryBaseSeconds: 10 });
    expect(config.ffmpegPath).toBeUndefined();
    expect(config.mediaUrlTtl).toBe(3600);
    expect(Object.isFrozen(config.jobs)).toBe(true);
  });

  it('reads DAM_JOB_*, FFMPEG_PATH and DAM_MEDIA_URL_TTL; 0 workers makes an API-only process', () => {
    const config = loadConfig(
      env({
        DAM_JOB_CONCURRENCY: '0',
        DAM_JOB_POLL_INTERVAL: '250',
        DAM_JOB_LEASE: '60',
        DAM_JOB_MAX_ATTEMPTS: '3',
        DAM_JOB_RETRY_BASE: '2',
        FFMPEG_PATH: '/opt/ffmpeg/bin/ffmpeg',
        DAM_MEDIA_URL_TTL: '600',
      }),
    );
    expect(config.jobs).toEqual({ concurrency: 0, pollIntervalMs: 250, leaseSeconds: 60, maxAttempts: 3, retryBaseSeconds: 2 });
    expect(config.ffmpegPath).toBe('/opt/ffmpeg/bin/ffmpeg');
    expect(config.mediaUrlTtl).toBe(600);
  });

  it.each([
    ['DAM_JOB_CONCURRENCY', '-1'],
    ['DAM_JOB_CONCURRENCY', 'many'],
    ['DAM_JOB_LEASE', '5'],
    ['DAM_JOB_MAX_ATTEMPTS', '0'],
    ['DAM_MEDIA_URL_TTL', '10'],
  ])('refuses %s=%s, naming the variable', (name, value) => {
    expect(() => loadConfig(env({ [name]: value }))).toThrow(ConfigError);
    expect(() => loadConfig(env({ [name]: value }))).toThrow(name);
  });

  it('backs off exponentially, capped at an hour', () => {
    expect([1, 2, 3, 4].map((n) => retryDelay(n, 10))).toEqual([10, 20, 40, 80]);
    expect(retryDelay(30, 10)).toBe(3600);
  });
});

describe('locateFfmpeg', () => {
  it('uses FFMPEG_PATH when it is an executable, else searches PATH; undefined when there is none', async () => {
    const dir = tempDir('dam-bin-');
    const fake = path.join(dir, 'ffmpeg');
    writeFileSync(fake, '#!/bin/sh\n');
    expect(await locateFfmpeg(undefined, `/nonexistent${path.delimiter}${dir}`)).toBeUndefined(); // not executable yet
    chmodSync(fake, 0o755);
    expect(await locateFfmpeg(undefined, `/nonexistent${path.delimiter}${dir}`)).toBe(fake);
    expect(await locateFfmpeg(fake, '')).toBe(fake);
    expect(await locateFfmpeg(path.join(dir, 'missing'), dir)).toBeUndefined();
    expect(await locateFfmpeg(undefined, '')).toBeUndefined();
    expect(await locateFfmpeg(dir, '')).toBeUndefined(); // a directory is not a program
  });
});
