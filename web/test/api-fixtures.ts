import type { EmbeddedFields, SearchDocument } from '../src/api/types';

/** An asset's embedded-metadata fields before the file was read: what every asset answer carries (issue #12). */
export const NO_EMBEDDED: Omit<EmbeddedFields, 'embedded_metadata'> = {
  taken_at: null,
  camera_make: null,
  camera_model: null,
  lens: null,
  iso: null,
  exposure: null,
  aperture: null,
  focal_length: null,
  gps_lat: null,
  gps_lon: null,
  duration: null,
  color_space: null,
  caption: null,
  creator: null,
  copyright: null,
  usage_terms: null,
  keywords: [],
  metadata_edited: [],
  metadata_version_id: null,
};

/** A search document with the fields a test names and neutral values for the rest. */
export function searchDoc(fields: Pick<SearchDocument, 'id' | 'display_file_name' | 'file_type' | 'modified_at'> & Partial<SearchDocument>): SearchDocument {
  return {
    workspace_id: 1,
    created_at: fields.modified_at,
    tags: [],
    visibility: 0,
    orientation: null,
    folder_id: null,
    file_name: fields.display_file_name,
    mime_type: 'application/octet-stream',
    file_size: 0,
    width: null,
    height: null,
    ...(NO_EMBEDDED as Partial<SearchDocument>),
    ...fields,
  };
}
