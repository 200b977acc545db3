import contentDisposition from 'content-disposition';

/*
 * The Content-Disposition of a download (RFC 6266), used by the services' downloads and by zip/'s archives alike.
 */

/** Latin letters NFKD does not decompose, and typographic marks, spelled in ASCII. */
const SPELLED: Record<string, string> = {
  ß: 'ss', ẞ: 'SS', æ: 'ae', Æ: 'AE', œ: 'oe', Œ: 'OE', ø: 'o', Ø: 'O', ł: 'l', Ł: 'L', đ: 'd', Đ: 'D', ð: 'd', Ð: 'D',
  þ: 'th', Þ: 'Th', ı: 'i', '\u2013': '-', '\u2014': '-', '\u2018': "'", '\u2019': "'", '\u201c': "'", '\u201d': "'",
};

/**
 * The plain `filename` parameter in US-ASCII only (RFC 6266 appendix D), readable: accents dropped (NFKD, then the
 * combining marks), a few letters spelled out (ß as ss), anything else '_'. Clients that ignore `filename*` save
 * under it (curl -OJ), and '?' is no character a file name should have. content-disposition's own fallback keeps
 * ISO-8859-1 bytes, and then omits filename* for names such as "Größe.jpg", so clients reading UTF-8 would get a
 * mangled name.
 */
export function asciiFallback(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]/gu, (c) => SPELLED[c] ?? '_');
}

/** `attachment` with the name (RFC 6266): `filename` in ASCII, and `filename*` (RFC 5987, UTF-8) when the name is not ASCII. */
export function contentDispositionAttachment(fileName: string): string {
  return contentDisposition(fileName, { type: 'attachment', fallback: asciiFallback(fileName) });
}
