/**
 * How a version's thumbnail and preview are made, decided from its (sniffed) MIME type alone.
 * Pure rules; the rendition job (services/rendition-service.ts) runs the tools.
 */
export type PreviewSource =
  | { kind: 'image' }
  | { kind: 'video' }
  | { kind: 'pdf' }
  /** Converted to PDF by LibreOffice; `extension` names the input file, as LibreOffice picks its import filter by it. */
  | { kind: 'office'; extension: string }
  | { kind: 'text' }
  | { kind: 'none' };

/** The office formats LibreOffice converts, with their usual file extension. */
const OFFICE: Record<string, string> = {
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'pptx',
  'application/vnd.oasis.opendocument.text': 'odt',
  'application/vnd.oasis.opendocument.spreadsheet': 'ods',
  'application/vnd.oasis.opendocument.presentation': 'odp',
  'application/msword': 'doc',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.ms-powerpoint': 'ppt',
  'application/rtf': 'rtf',
  'text/rtf': 'rtf',
};

/** application/* types that are text a person reads (data, markup, source code); every text/* type is too. */
const TEXT_APPLICATION = new Set([
  'json',
  'x-ndjson',
  'xml',
  'javascript',
  'x-javascript',
  'ecmascript',
  'typescript',
  'x-typescript',
  'x-sh',
  'x-shellscript',
  'yaml',
  'x-yaml',
  'toml',
  'x-toml',
  'sql',
  'graphql',
  'x-httpd-php',
  'x-tex',
  'x-latex',
  'x-subrip',
]);

export function previewSourceOf(mime: string): PreviewSource {
  const essence = mime.split(';')[0]!.trim().toLowerCase();
  const [type = '', subtype = ''] = essence.split('/', 2);
  // SVG is markup, not pixels: it is not rasterised on the server.
  if (type === 'image' && subtype && essence !== 'image/svg+xml') return { kind: 'image' };
  if (type === 'video' && subtype) return { kind: 'video' };
  if (essence === 'application/pdf') return { kind: 'pdf' };
  const extension = OFFICE[essence];
  if (extension) return { kind: 'office', extension };
  if (type === 'text' && subtype) return { kind: 'text' };
  if (type === 'application' && (TEXT_APPLICATION.has(subtype) || subtype.endsWith('+json') || subtype.endsWith('+xml'))) return { kind: 'text' };
  return { kind: 'none' };
}
