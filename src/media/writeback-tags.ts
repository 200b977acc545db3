/**
 * The tags a download with `embed_metadata=true` writes into the file (issue #12): the asset's caption, creator,
 * copyright, usage terms and tags (as keywords), each in the places src/media/embedded-fields.ts reads it from,
 * so that any reader, and this service reading the file again, finds the DAM's value whichever place it prefers:
 * XMP (dc, xmpRights), IPTC IIM (UTF-8) and EXIF. ExifTool skips the places a format has no room for.
 */

export interface WritebackValues {
  caption: string | null;
  creator: string | null;
  copyright: string | null;
  usage_terms: string | null;
  tags: readonly string[];
}

export type WriteTagValues = Record<string, string | string[] | null>;

/** Several creators are kept as one text joined by "; " (embedded-fields.ts); XMP lists them again one by one. */
const creators = (creator: string) => creator.split('; ').filter((c) => c.trim() !== '');

/**
 * `replace`: the asset's values are the file's as the DAM knows them (its file was read), so a field without a
 * value is removed from the file and the tags replace its keywords. Otherwise (the file was not read yet, so a
 * missing value may only mean "not known yet") only values are written and the tags are added to the file's
 * keywords (ExifTool's remove-then-add, so none is doubled); nothing is removed.
 */
export function writebackTags(values: WritebackValues, replace: boolean): WriteTagValues {
  const tags: WriteTagValues = {};
  const set = (names: string[], value: string | string[] | null) => {
    if (value === null && !replace) return;
    for (const name of names) tags[name] = value;
  };
  set(['XMP-dc:Description', 'IPTC:Caption-Abstract', 'EXIF:ImageDescription'], values.caption);
  set(['IPTC:By-line', 'EXIF:Artist'], values.creator);
  set(['XMP-dc:Creator'], values.creator === null ? null : creators(values.creator));
  set(['XMP-dc:Rights', 'IPTC:CopyrightNotice', 'EXIF:Copyright'], values.copyright);
  set(['XMP-xmpRights:UsageTerms'], values.usage_terms);
  const keywords = [...values.tags];
  for (const name of ['XMP-dc:Subject', 'IPTC:Keywords']) {
    if (replace) {
      tags[name] = keywords.length > 0 ? keywords : null;
    } else if (keywords.length > 0) {
      tags[`${name}-`] = keywords;
      tags[`${name}+`] = keywords;
    }
  }
  // IPTC IIM text is Latin-1 unless the file says UTF-8.
  tags['IPTC:CodedCharacterSet'] = 'UTF8';
  return tags;
}
