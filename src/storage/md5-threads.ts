import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/**
 * MD5 of part bodies on worker threads (issue #39). A part's ETag is the MD5 of its bytes, and MD5 runs at
 * about 650 MB/s on one core: hashed on the event loop, it took half of the loop's time during a multipart
 * upload, and the loop also receives every body. Here the loop only copies each body into 1 MiB slabs and
 * hands them to a hashing thread (the slab comes back for reuse), so receiving, hashing and the disk writes
 * of the libuv pool run side by side. A body of less than one slab is hashed where it is, without a thread.
 */

/** Bytes handed to a thread at a time. */
const SLAB = 1 << 20;
/** Slabs of one body at most waiting for a thread; past it `update` answers a promise to wait for. */
const IN_FLIGHT = 2;
/** Spare slabs kept for the next bodies. */
const SPARE = 8;

/** The thread: one MD5 per body id; a slab is hashed and sent back. CommonJS, so that it runs from sources and from dist. */
const THREAD_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const bodies = new Map();
parentPort.on('message', (m) => {
  let md5 = bodies.get(m.id);
  if (m.slab) {
    if (!md5) bodies.set(m.id, (md5 = createHash('md5')));
    md5.update(new Uint8Array(m.slab, 0, m.length));
    parentPort.postMessage({ id: m.id, slab: m.slab }, [m.slab]);
  } else if (m.end) {
    bodies.delete(m.id);
    parentPort.postMessage({ id: m.id, hex: (md5 ?? createHash('md5')).digest('hex') });
  } else {
    bodies.delete(m.id);
  }
});
`;

interface Pending {
  /** A slab came back: one fewer in flight. */
  returned(): void;
  ended(hex: string): void;
  failed(err: Error): void;
}

class HashThread {
  readonly worker = new Worker(THREAD_SOURCE, { eval: true });
  readonly bodies = new Map<number, Pending>();

  constructor(
    private readonly spare: ArrayBuffer[],
    onExit: (thread: HashThread) => void,
  ) {
    this.worker.unref();
    this.worker.on('message', (m: { id: number; slab?: ArrayBuffer; hex?: string }) => {
      if (m.slab && this.spare.length < SPARE) this.spare.push(m.slab);
      const body = this.bodies.get(m.id);
      if (m.hex !== undefined) {
        this.forget(m.id);
        body?.ended(m.hex);
      } else body?.returned();
    });
    const fail = (err: Error) => {
      onExit(this);
      for (const body of this.bodies.values()) body.failed(err);
      this.bodies.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`the MD5 thread exited (${code})`)));
  }

  /** Holds the process open while it hashes a body, and only then. */
  add(id: number, body: Pending): void {
    if (this.bodies.size === 0) this.worker.ref();
    this.bodies.set(id, body);
  }

  forget(id: number): void {
    if (this.bodies.delete(id) && this.bodies.size === 0) this.worker.unref();
  }
}

/** The MD5 of one body, fed in order. */
export interface BodyMd5 {
  /** Takes a copy of the chunk's bytes; answers a promise when the caller should wait for it before the next chunk. */
  update(chunk: Uint8Array): Promise<void> | undefined;
  /** The hex digest of every byte given. */
  digest(): Promise<string>;
  /** The body failed: its state is dropped. */
  discard(): void;
}

/** A few hashing threads shared by every body of the process, started when first needed. */
export class Md5Threads {
  private readonly threads: HashThread[] = [];
  private readonly spare: ArrayBuffer[] = [];
  private nextId = 0;

  /** One thread less than the cores (the event loop keeps one), one at least, four at most. */
  constructor(private readonly size = Math.max(1, Math.min(4, availableParallelism() - 1))) {}

  /** The thread with the fewest bodies; a new one while there are fewer than `size`. */
  private pick(): HashThread {
    const idle = this.threads.find((t) => t.bodies.size === 0);
    if (idle) return idle;
    if (this.threads.length < this.size) {
      const thread = new HashThread(this.spare, (gone) => {
        const at = this.threads.indexOf(gone);
        if (at >= 0) this.threads.splice(at, 1);
      });
      this.threads.push(thread);
      return thread;
    }
    return this.threads.reduce((a, b) => (b.bodies.size < a.bodies.size ? b : a));
  }

  body(): BodyMd5 {
    const id = this.nextId++;
    let slab: ArrayBuffer | undefined;
    let filled = 0;
    let thread: HashThread | undefined;
    let inFlight = 0;
    let error: Error | undefined;
    let resume: { resolve: () => void; reject: (err: Error) => void } | undefined;
    let result: { resolve: (hex: string) => void; reject: (err: Error) => void } | undefined;
    const pending: Pending = {
      returned() {
        inFlight--;
        if (resume && inFlight < IN_FLIGHT) {
          resume.resolve();
          resume = undefined;
        }
      },
      ended: (hex) => result?.resolve(hex),
      failed(err) {
        error = err;
        resume?.reject(err);
        result?.reject(err);
      },
    };
    const send = () => {
      if (!thread) {
        thread = this.pick();
        thread.add(id, pending);
      }
      thread.worker.postMessage({ id, slab, length: filled }, [slab!]);
      inFlight++;
      slab = undefined;
      filled = 0;
    };
    return {
      update: (chunk) => {
        if (error) return Promise.reject(error);
        for (let at = 0; at < chunk.length; ) {
          slab ??= this.spare.pop() ?? new ArrayBuffer(SLAB);
          const n = Math.min(SLAB - filled, chunk.length - at);
          new Uint8Array(slab, filled, n).set(chunk.subarray(at, at + n));
          filled += n;
          at += n;
          if (filled === SLAB) send();
        }
        if (inFlight < IN_FLIGHT) return undefined;
        return new Promise<void>((resolve, reject) => (resume = { resolve, reject }));
      },
      digest: () => {
        if (error) return Promise.reject(error);
        if (!thread) {
          // Less than a slab in all: hashed here.
          const hex = createHash('md5')
            .update(slab ? new Uint8Array(slab, 0, filled) : new Uint8Array(0))
            .digest('hex');
          if (slab && this.spare.length < SPARE) this.spare.push(slab);
          slab = undefined;
          return Promise.resolve(hex);
        }
        if (filled > 0) send();
        const done = new Promise<string>((resolve, reject) => (result = { resolve, reject }));
        thread.worker.postMessage({ id, end: true });
        return done;
      },
      discard: () => {
        if (slab && this.spare.length < SPARE) this.spare.push(slab);
        slab = undefined;
        if (!thread) return;
        thread.worker.postMessage({ id });
        thread.forget(id);
      },
    };
  }
}
