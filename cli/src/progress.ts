import cliProgress from 'cli-progress';
import { formatBytes } from './format.js';

/** Progress of one file's transfer. */
export interface FileProgress {
  update(loaded: number): void;
  end(): void;
}

/** How an upload run shows itself: bars on a terminal, one line per event otherwise (logs, CI, pipes). */
export interface Reporter {
  start(files: number, bytes: number): void;
  file(display: string, size: number): FileProgress;
  /** A file finished, skipped or failed: counts towards the overall bar (`bytes` of it not yet counted). */
  settled(bytes: number): void;
  /** A file counted by `start` that will not be sent after all (a duplicate, unreadable): leaves the totals. */
  dropped(bytes: number): void;
  /** An event line: every one in plain mode, only `important` ones (failures) between the bars. */
  event(line: string, important?: boolean): void;
  stop(): void;
}

export function createReporter(options: { tty: boolean; quiet: boolean }): Reporter {
  return options.tty ? new BarReporter() : new LineReporter(options.quiet);
}

class LineReporter implements Reporter {
  constructor(private readonly quiet: boolean) {}
  start(): void {}
  file(): FileProgress {
    return { update() {}, end() {} };
  }
  settled(): void {}
  dropped(): void {}
  event(line: string): void {
    if (!this.quiet) process.stdout.write(`${line}\n`);
  }
  stop(): void {}
}

/** One overall bar (files, bytes, speed, ETA) and a bar per file being sent, on stderr. */
class BarReporter implements Reporter {
  private readonly multi = new cliProgress.MultiBar(
    {
      stream: process.stderr,
      hideCursor: true,
      clearOnComplete: false,
      etaBuffer: 50,
      fps: 8,
      format: '{label} [{bar}] {percentage}% | {detail}',
      barsize: 24,
    },
    cliProgress.Presets.shades_classic,
  );
  private overall: cliProgress.SingleBar | undefined;
  private files = 0;
  private filesDone = 0;
  private bytesDone = 0;
  private readonly active = new Map<object, number>();
  private readonly began = Date.now();

  private overallPayload() {
    const inFlight = [...this.active.values()].reduce((a, b) => a + b, 0);
    const sent = this.bytesDone + inFlight;
    const seconds = Math.max(0.001, (Date.now() - this.began) / 1000);
    const total = this.overall?.getTotal() ?? 0;
    const speed = sent / seconds;
    const eta = speed > 0 ? Math.round((total - sent) / speed) : 0;
    return {
      value: sent,
      payload: {
        label: 'total',
        detail: `${this.filesDone}/${this.files} files | ${formatBytes(sent)}/${formatBytes(total)} | ${formatBytes(speed)}/s | ETA ${eta}s`,
      },
    };
  }

  private refresh(): void {
    const { value, payload } = this.overallPayload();
    this.overall?.update(value, payload);
  }

  start(files: number, bytes: number): void {
    this.files = files;
    this.overall = this.multi.create(Math.max(bytes, 1), 0, { label: 'total', detail: '' });
    this.refresh();
  }

  file(display: string, size: number): FileProgress {
    const key = {};
    this.active.set(key, 0);
    const name = display.length > 40 ? `…${display.slice(-39)}` : display.padEnd(40);
    const bar = this.multi.create(Math.max(size, 1), 0, { label: name, detail: formatBytes(size) });
    return {
      update: (loaded) => {
        this.active.set(key, loaded);
        bar.update(loaded);
        this.refresh();
      },
      end: () => {
        this.active.delete(key);
        this.multi.remove(bar);
      },
    };
  }

  settled(bytes: number): void {
    this.filesDone += 1;
    this.bytesDone += bytes;
    this.refresh();
  }

  dropped(bytes: number): void {
    this.files -= 1;
    this.overall?.setTotal(Math.max(this.overall.getTotal() - bytes, 1));
    this.refresh();
  }

  event(line: string, important = false): void {
    if (important) this.multi.log(`${line}\n`);
  }

  stop(): void {
    this.refresh();
    this.multi.stop();
  }
}
