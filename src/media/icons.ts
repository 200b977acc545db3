import { FILE_TYPES, type FileType } from '../domain/file-types.js';

/** Colour and label of each file type's generic icon. */
const STYLE: Record<FileType, { colour: string; label: string }> = {
  image: { colour: '#2f855a', label: 'IMG' },
  video: { colour: '#c53030', label: 'VIDEO' },
  audio: { colour: '#6b46c1', label: 'AUDIO' },
  document: { colour: '#2b6cb0', label: 'DOC' },
  archive: { colour: '#b7791f', label: 'ZIP' },
  other: { colour: '#4a5568', label: 'FILE' },
};

export function isFileType(name: string): name is FileType {
  return (FILE_TYPES as readonly string[]).includes(name);
}

/**
 * A 256 px generic icon (a sheet with a folded corner and the type's label) for versions
 * without a preview: documents, archives, audio, videos without ffmpeg, unreadable images.
 * Static and ours, so it is served without a signature and cached for a day.
 */
export function iconSvg(fileType: FileType): string {
  const { colour, label } = STYLE[fileType];
  return `<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256" viewBox="0 0 256 256">
<path d="M64 24h92l44 44v164H64z" fill="#f7fafc" stroke="${colour}" stroke-width="8" stroke-linejoin="round"/>
<path d="M156 24v44h44" fill="none" stroke="${colour}" stroke-width="8" stroke-linejoin="round"/>
<rect x="40" y="140" width="176" height="56" rx="8" fill="${colour}"/>
<text x="128" y="179" font-family="sans-serif" font-size="30" font-weight="700" fill="#fff" text-anchor="middle">${label}</text>
</svg>
`;
}
