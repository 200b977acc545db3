import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError, ERRORS, type ErrorCode } from '../errors.js';
import { FAULT_ANSWERS, faultError, faultOf } from '../faults/classify.js';
import type { FaultMonitor } from '../faults/monitor.js';

interface ValidationIssue {
  instancePath: string;
  keyword?: string;
  message?: string;
  params: Record<string, unknown>;
}

/**
 * The issue that says most: a value failing a union (`anyOf`) gets one issue per branch, and the
 * first ("must be null") is rarely the point. Deepest path first, then an unknown or missing
 * property over a type mismatch; the summary `anyOf` issue last.
 */
function mostSpecific(issues: ValidationIssue[]): ValidationIssue | undefined {
  const rank = (i: ValidationIssue) =>
    i.instancePath.split('/').length * 10 + (i.keyword === 'anyOf' ? 0 : i.params.additionalProperty !== undefined || i.params.missingProperty !== undefined ? 2 : 1);
  return [...issues].sort((a, b) => rank(b) - rank(a))[0];
}

/** Turns Ajv's first issue into "body.email: must match format "email"", naming the field. */
export function describeValidation(context: string | undefined, issues: ValidationIssue[]): { message: string; field: string } {
  const issue = mostSpecific(issues);
  const where = context ?? 'request';
  if (!issue) return { message: `${where} is invalid`, field: where };
  const path = issue.instancePath.split('/').filter(Boolean);
  const missing = issue.params.missingProperty;
  if (typeof missing === 'string') path.push(missing);
  const extra = issue.params.additionalProperty;
  if (typeof extra === 'string') path.push(extra);
  const field = path.join('.') || where;
  let message = typeof missing === 'string' ? 'is required' : (issue.message ?? 'is invalid');
  if (typeof extra === 'string') message = 'is not an allowed property';
  if (Array.isArray(issue.params.allowedValues)) message += `: ${issue.params.allowedValues.join(', ')}`;
  return { message: `${[where, ...path].join('.')} ${message}`, field };
}

/** Fastify's own 4xx errors (bad JSON, wrong content type, body too large) mapped onto our codes. */
function frameworkCode(status: number): ErrorCode {
  if (status === 413) return 'PAYLOAD_TOO_LARGE';
  if (status === 415) return 'UNSUPPORTED_MEDIA_TYPE';
  if (status === 401) return 'UNAUTHORIZED';
  if (status === 404) return 'NOT_FOUND';
  if (status === 429) return 'RATE_LIMITED';
  return 'VALIDATION_ERROR';
}

/**
 * The one error handler (seed 7.2). A fault (issue #37: a full disk, the database or the object store unavailable) is
 * answered with its own code (507 INSUFFICIENT_STORAGE, 503 DATABASE_UNAVAILABLE or STORAGE_UNAVAILABLE) and
 * Retry-After, and reported to `faults` (one log line per incident, not one per request), never a 500.
 */
export function installErrorHandler(app: FastifyInstance, exposeStack: boolean, faults?: FaultMonitor): void {
  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    const fault = faultOf(error);
    if (fault) {
      faults?.report(fault, error, `${request.method} ${request.routeOptions.url ?? '(unmatched)'}`);
      reply.header('retry-after', String(FAULT_ANSWERS[fault].retryAfter));
      if (!(error instanceof AppError)) error = faultError(fault);
    }
    // A streamed answer (a download, a ZIP) that fails before its first byte has set the headers of
    // its file: the error is JSON, without them.
    if (reply.hasHeader('content-disposition')) {
      reply.removeHeader('content-disposition');
      reply.removeHeader('content-length');
      reply.header('content-type', 'application/json; charset=utf-8');
    }
    if (error instanceof AppError) {
      // RFC 9110 §15.5.17: a 416 names the current length, so the client can ask again within it.
      if (error.code === 'RANGE_NOT_SATISFIABLE' && typeof error.details?.size === 'number') reply.header('content-range', `bytes */${error.details.size}`);
      return reply.status(error.status).send({ error: error.message, code: error.code, ...error.details });
    }
    if (error.validation) {
      const issues = error.validation as ValidationIssue[];
      const { message, field } = describeValidation(error.validationContext, issues);
      // seed 7.1: a required parameter that is absent is MISSING_PARAMETER; any other invalid input VALIDATION_ERROR.
      const code = typeof mostSpecific(issues)?.params.missingProperty === 'string' ? 'MISSING_PARAMETER' : 'VALIDATION_ERROR';
      return reply.status(400).send({ error: message, code, field });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return reply.status(status).send({ error: error.message, code: frameworkCode(status) });
    }
    request.log.error({ err: error }, 'unexpected failure');
    const body: { error: string; stack?: string } = { error: ERRORS.INTERNAL_ERROR.message };
    if (exposeStack) {
      body.error = error.message || body.error;
      body.stack = error.stack ?? '';
    }
    return reply.status(500).send(body);
  });

  app.setNotFoundHandler((request, reply) => {
    return reply.status(404).send({ error: `Route ${request.method} ${request.url.split('?')[0]} not found`, code: 'NOT_FOUND' });
  });
}
