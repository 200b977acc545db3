/**
 * A kind of job: its name in the jobs table and, as a type only, its payload. Enqueueing and
 * handling both go through the same JobKind, so a payload cannot drift from its handler.
 */
export interface JobKind<P> {
  readonly name: string;
  /** Phantom: carries the payload type; never set. */
  readonly payload?: P;
}

export function jobKind<P>(name: string): JobKind<P> {
  return { name };
}

/** What runs a job: a small named function calling the same services as the HTTP routes. */
export interface JobHandler<P> {
  readonly kind: JobKind<P>;
  run(payload: P): Promise<void>;
  /** Called once the job has failed for good (after its last attempt), e.g. to record it on the row it served. */
  onGaveUp?(payload: P, error: string): Promise<void>;
}

export function defineHandler<P>(kind: JobKind<P>, run: (payload: P) => Promise<void>, onGaveUp?: (payload: P, error: string) => Promise<void>): JobHandler<P> {
  return { kind, run, onGaveUp };
}

/** Thrown by a handler when retrying cannot help: the job fails at once. */
export class PermanentJobError extends Error {
  override name = 'PermanentJobError';
}
