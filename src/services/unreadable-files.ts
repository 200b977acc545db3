import type { AppContext } from '../context.js';
import type { UnreadableMedia } from '../media/renditions.js';
import { firstLines, ToolFailure } from '../media/tools.js';
import { saveUnreadableReason } from '../repositories/unreadable.js';
import type { VersionRecord } from '../repositories/versions.js';

/** Where the tools' own words go (the app's logger, set by buildApp). */
export interface ToolLog {
  warn(fields: object, message: string): void;
}

/**
 * Issue #27, unreadable files: a tool's failure reaches users only as its fixed words (the error's message), never
 * as the tool's own output, which may name a server path; that goes to the log. A file the preview jobs find
 * damaged (a truncated JPEG, bytes that are no video) marks its version, and its asset while current, as
 * unreadable with those words; the file itself is kept and downloads as before.
 */
export class UnreadableFiles {
  log: ToolLog | undefined;

  constructor(private readonly ctx: AppContext) {}

  /** Logs what the tool said, if it said anything, beside `subject` (which job, which version). */
  note(err: unknown, subject: Record<string, unknown>): void {
    if (err instanceof ToolFailure && err.detail) this.log?.warn({ ...subject, tool_output: firstLines(err.detail, 2000) }, err.message);
  }

  /** A version's file failed its check: logged, and marked unreadable when damaged. Returns the words for its preview note. */
  async record(version: VersionRecord, err: UnreadableMedia): Promise<string> {
    this.note(err, { version: version.id, asset: version.asset_id });
    if (err.damaged) await saveUnreadableReason(this.ctx.db, version, err.message);
    return err.message;
  }
}
