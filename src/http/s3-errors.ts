import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { describeValidation } from './error-handler.js';
import { FAULT_ANSWERS, faultError, faultOf } from '../faults/classify.js';
import type { FaultMonitor } from '../faults/monitor.js';

/**
 * Issue #38: the local store's presigned part URL (PUT /storage/parts/:uploadId/:n) speaks S3's protocol when it
 * refuses, as it does when it accepts: an S3 error document (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html)
 * with S3's code and status. S3 clients act on it: Uppy's @uppy/aws-s3 and the AWS SDKs re-sign a part on a 403
 * `AccessDenied` "Request has expired", where the service's JSON made them give up. The rest of the API keeps its
 * `{error, code}` JSON; this is the error handler of the part route alone, so a successful part costs nothing more.
 */
export interface S3Error {
  status: number;
  code: string;
  message: string;
  /** Elements after <Message>, in order, as S3 adds them (<Expires>, <ServerTime>, <UploadId>, <MaxSizeAllowed>, ...). */
  fields?: [string, string | number][];
}

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
const escapeXml = (text: string): string => text.replace(/[&<>"']/g, (c) => XML_ESCAPES[c]!);
// eslint-disable-next-line no-control-regex -- XML 1.0 cannot carry C0 controls but tab, LF and CR, even escaped.
const xmlText = (value: string | number): string => escapeXml(String(value).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '\ufffd'));

/** S3's error document; `requestId` is its <RequestId> (and the `x-amz-request-id` header). */
export function s3ErrorXml(error: S3Error, requestId: string): string {
  const elements: [string, string | number][] = [['Code', error.code], ['Message', error.message], ...(error.fields ?? []), ['RequestId', requestId]];
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error>${elements.map(([name, value]) => `<${name}>${xmlText(value)}</${name}>`).join('')}</Error>`;
}

/** S3's timestamps in errors: ISO 8601 to the second, UTC. */
const isoSeconds = (unix: number): string => new Date(unix * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

const INTERNAL: S3Error = { status: 500, code: 'InternalError', message: 'We encountered an internal error. Please try again.' };

/** A status without a closer match: S3's code (and status) for it. */
function byStatus(status: number, message: string): S3Error {
  if (status === 401 || status === 403) return { status: 403, code: 'AccessDenied', message };
  if (status === 404) return { status: 404, code: 'NoSuchKey', message };
  if (status === 405) return { status: 405, code: 'MethodNotAllowed', message };
  if (status === 408) return { status: 400, code: 'RequestTimeout', message };
  if (status === 411) return { status: 411, code: 'MissingContentLength', message };
  if (status === 413) return { status: 400, code: 'EntityTooLarge', message };
  // S3 asks a client to slow down with 503 SlowDown; S3 clients back off and retry on it.
  if (status === 429) return { status: 503, code: 'SlowDown', message };
  if (status >= 500) return INTERNAL;
  return { status: 400, code: 'InvalidRequest', message };
}

interface PartRequest {
  params: unknown;
  headers: Record<string, string | string[] | undefined>;
}

/** The S3 error for a failure of the part route (the mapping is listed in the route's OpenAPI description). */
export function partUploadS3Error(error: FastifyError | AppError, request: PartRequest): S3Error {
  const uploadId = (request.params as { uploadId?: unknown } | undefined)?.uploadId;
  if (error instanceof AppError) {
    const details = error.details ?? {};
    switch (error.code) {
      case 'URL_EXPIRED': {
        // Word for word S3's: Uppy re-signs the part on exactly this message.
        const fields: [string, string][] = [];
        if (typeof details.expires === 'number') fields.push(['Expires', isoSeconds(details.expires)]);
        if (typeof details.serverTime === 'number') fields.push(['ServerTime', isoSeconds(details.serverTime)]);
        return { status: 403, code: 'AccessDenied', message: 'Request has expired', fields };
      }
      case 'INVALID_SIGNATURE':
        return { status: 403, code: 'SignatureDoesNotMatch', message: error.message };
      // Unknown, aborted or completed; past DAM_UPLOAD_MAX_LIFETIME (S3 answers so for an upload its lifecycle rule
      // aborted); or gone while the part was written (the store's own NoSuchUpload, the one UPLOAD_FAILED a part meets).
      case 'INVALID_UPLOAD_ID':
      case 'UPLOAD_EXPIRED':
      case 'UPLOAD_FAILED':
        return { status: 404, code: 'NoSuchUpload', message: error.message, fields: typeof uploadId === 'string' ? [['UploadId', uploadId]] : [] };
      case 'PAYLOAD_TOO_LARGE': {
        const fields: [string, string | number][] = [];
        const length = request.headers['content-length'];
        if (typeof length === 'string' && /^\d{1,16}$/.test(length)) fields.push(['ProposedSize', Number(length)]);
        if (typeof details.limit === 'number') fields.push(['MaxSizeAllowed', details.limit]);
        return { status: 400, code: 'EntityTooLarge', message: error.message, fields };
      }
      // S3 has no storage quota; S3-compatible stores that do (Ceph RGW) call it QuotaExceeded. 402 as on the API:
      // no S3 client retries it, and the service's own clients tell it from a signature to renew.
      case 'QUOTA_EXCEEDED':
        return { status: 402, code: 'QuotaExceeded', message: error.message };
      case 'S3_ERROR':
        return INTERNAL;
      // issue #37: S3's own answer for a service that cannot take the request now; S3 clients retry it.
      case 'DATABASE_UNAVAILABLE':
      case 'STORAGE_UNAVAILABLE':
        return { status: 503, code: 'ServiceUnavailable', message: error.message };
      // S3 has no full disk; MinIO answers a drive past its free-space threshold so (507, XMinioStorageFull).
      case 'INSUFFICIENT_STORAGE':
        return { status: 507, code: 'XMinioStorageFull', message: error.message };
      default:
        return byStatus(error.status, error.message);
    }
  }
  if (error.validation) {
    const { message, field } = describeValidation(error.validationContext, error.validation);
    return { status: 400, code: 'InvalidArgument', message, fields: [['ArgumentName', field]] };
  }
  return byStatus(error.statusCode ?? 500, error.message);
}

/**
 * The part route's error handler: the S3 error document, as application/xml, the CORS headers already set kept. A
 * fault (issue #37) is reported to `faults` and answered with Retry-After, as on the rest of the API.
 */
export function s3ErrorHandler(faults?: FaultMonitor) {
  return (error: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const fault = faultOf(error);
    if (fault) {
      faults?.report(fault, error, `${request.method} ${request.routeOptions.url ?? '(unmatched)'}`);
      reply.header('retry-after', String(FAULT_ANSWERS[fault].retryAfter));
      if (!(error instanceof AppError)) error = faultError(fault);
    }
    return answerS3Error(error, request, reply, fault !== undefined);
  };
}

function answerS3Error(error: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply, reported: boolean): FastifyReply {
  const s3 = partUploadS3Error(error, request);
  // A fault was reported above: the monitor logs it once per incident, not once per request.
  if (s3.status >= 500 && !reported) request.log.error({ err: error }, 'unexpected failure');
  return reply.status(s3.status).header('content-type', 'application/xml').header('x-amz-request-id', request.id).send(s3ErrorXml(s3, request.id));
}
