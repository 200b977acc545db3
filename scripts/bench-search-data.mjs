// Synthetic catalog for `npm run bench:search`: realistic file names, 0-5 tags
// from a vocabulary of 500, every file type, 30% private, dates over 5 years,
// capture dates, camera models and creators where files of the kind have them.
// Deterministic (seeded), so runs are comparable. Names carry their sort key
// (name_key, from dist/: `npm run bench:search` builds first), as the repositories write it.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const { sortKey } = await import(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist/domain/sort-key.js'));
export { sortKey };

const NOUNS = (
  'beach sunset mountain river forest city street portrait family wedding party dog cat bird flower garden lake ocean island ' +
  'bridge tower castle church market festival concert stadium office meeting team product logo banner poster flyer brochure ' +
  'invoice contract report budget plan roadmap design sketch draft mockup wireframe prototype campaign launch event conference ' +
  'workshop training interview podcast episode trailer teaser clip footage drone aerial night sunrise snow winter summer spring ' +
  'autumn rain storm cloud sky star moon desert canyon valley hill field farm barn car bike train plane boat harbor airport hotel ' +
  'restaurant kitchen coffee dinner lunch breakfast cake wine beer menu recipe book cover page chapter album song track beat mix ' +
  'voice note memo letter card label package box shelf store shop window door house room studio gallery museum statue painting'
).split(' ');
const ADJECTIVES = 'red blue green yellow black white golden silver dark bright old new big small happy quiet wild urban rural vintage modern classic'.split(' ');

/** 500 tags: the nouns, then adjective-noun pairs. */
export const TAGS = [...NOUNS, ...ADJECTIVES.flatMap((a) => NOUNS.map((n) => `${a}-${n}`))].slice(0, 500);

const TYPES = {
  image: [['jpg', 'image/jpeg'], ['png', 'image/png'], ['heic', 'image/heic']],
  video: [['mp4', 'video/mp4'], ['mov', 'video/quicktime']],
  audio: [['mp3', 'audio/mpeg'], ['wav', 'audio/wav']],
  document: [['pdf', 'application/pdf'], ['docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'], ['txt', 'text/plain']],
  archive: [['zip', 'application/zip']],
  other: [['bin', 'application/octet-stream'], ['psd', 'image/vnd.adobe.photoshop-x']],
};
const FILE_TYPE_OF_MIME = { 'image/vnd.adobe.photoshop-x': 'image' };
const SIZES = [[4000, 3000], [3000, 4000], [1920, 1080], [1080, 1920], [2000, 2000]];

export function prng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pad = (n, w) => String(n).padStart(w, '0');
const capital = (w) => w[0].toUpperCase() + w.slice(1);

/** One asset row: camera names, screenshots, named media, office documents, archives. */
export function makeAsset(r, now) {
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  const year = () => 2020 + Math.floor(r() * 5);
  const x = r();
  let type;
  let name;
  if (x < 0.3) [type, name] = ['image', `IMG_${pad(Math.floor(r() * 10000), 4)}.${r() < 0.5 ? 'jpg' : 'JPG'}`];
  else if (x < 0.4) [type, name] = ['image', `DSC${pad(Math.floor(r() * 100000), 5)}.JPG`];
  else if (x < 0.62) [type, name] = [pick(['image', 'image', 'video', 'audio']), `${pick(NOUNS)}-${pick(NOUNS)}-${year()}`];
  else if (x < 0.78) [type, name] = ['document', `${capital(pick(NOUNS))} ${pick(NOUNS)} ${pick(['final', 'v2', 'draft', 'v3', 'copy'])}`];
  else if (x < 0.88) [type, name] = ['image', `Screenshot ${year()}-${pad(1 + Math.floor(r() * 12), 2)}-${pad(1 + Math.floor(r() * 28), 2)} at ${pad(Math.floor(r() * 24), 2)}.${pad(Math.floor(r() * 60), 2)}.${pad(Math.floor(r() * 60), 2)}`];
  else [type, name] = [pick(['video', 'audio', 'archive', 'other']), `${pick(NOUNS)} ${pick(NOUNS)}`];
  const [ext, mime] = pick(TYPES[type]);
  const fileName = /\.[A-Za-z]+$/.test(name) ? name : `${name}.${ext}`;
  const tags = [...new Set(Array.from({ length: Math.floor(r() * 6) }, () => pick(TAGS)))];
  const [width, height] = type === 'image' || type === 'video' ? pick(SIZES) : [null, null];
  const created = now - Math.floor(r() * 5 * 365 * 86400);
  return {
    file_name: fileName,
    file_type: FILE_TYPE_OF_MIME[mime] ?? type,
    mime_type: mime,
    file_size: Math.floor(r() * 50_000_000),
    width,
    height,
    orientation: width === null ? null : width > height ? 'landscape' : width < height ? 'portrait' : 'square',
    tags: JSON.stringify(tags),
    visibility: r() < 0.3 ? 1 : 0,
    created_at: created,
    modified_at: Math.min(now, created + Math.floor(r() * 90 * 86400)),
  };
}

const PHONES = ['iPhone 15 Pro', 'iPhone 14', 'iPhone 13', 'iPhone 12 Pro', 'iPhone 11', 'iPhone SE (2nd generation)', 'iPhone 15', 'iPhone XR', 'Pixel 7', 'Pixel 8 Pro', 'SM-S911B', 'SM-G991B'];
const CAMERAS = ['ILCE-7M3', 'ILCE-7RM4', 'ILCE-6400', 'NIKON D750', 'NIKON Z 6_2', 'NIKON D850', 'Canon EOS R5', 'Canon EOS 5D Mark IV', 'Canon EOS R6', 'X-T4', 'X100V', 'DC-S5', 'E-M1MarkII', 'DMC-GH4', 'FC3582', 'HERO11 Black'];
const FIRST = 'Anna Ben Carla David Elena Felix Greta Hugo Ines Jonas Katrin Lukas Maria Noah Olga Paul Rosa Simon Tara Victor'.split(' ');
const LAST = 'Berger Costa Dubois Eriksen Fischer Garcia Hansen Ivanova Jensen Keller Lopez Moreau Novak Olsen Petrov'.split(' ');
/** 300 creators: people, and a few agencies. */
const CREATORS = [...FIRST.flatMap((f) => LAST.map((l) => `${f} ${l}`)), 'Studio North', 'Acme Photo Agency', 'Press Office', 'Marketing Team'].slice(0, 300);

/** Index into a list of n, skewed towards the front (a few cameras and creators hold most files, as in real libraries). */
const skewed = (m, n) => Math.min(n - 1, Math.floor(n * m() ** 2.5));

/**
 * What a library's embedded metadata looks like (issue #12): camera photos carry a capture date and a
 * camera model, screenshots rarely, named media sometimes, documents and the rest never a date; about
 * a third of photos and documents name a creator. Capture dates lie before the upload, mostly shortly
 * before, some years before (scanned archives). Drawn from their own generator `m`, so the other columns
 * stay exactly as they were without it.
 */
export function embeddedMetadata(m, a) {
  const camera = /^IMG_/.test(a.file_name) ? PHONES : /^DSC/.test(a.file_name) ? CAMERAS : null;
  const dated = camera ? 0.97 : /^Screenshot/.test(a.file_name) ? 0.1 : a.file_type === 'image' ? 0.6 : a.file_type === 'video' ? 0.7 : 0;
  const hasDate = m() < dated;
  const lag = m() < 0.8 ? Math.floor(m() * 30 * 86400) : Math.floor(m() * 12 * 365 * 86400);
  const taken_at = hasDate ? a.created_at - lag : null;
  let camera_model = null;
  if (hasDate && (camera || m() < 0.5)) {
    const models = camera ?? (m() < 0.5 ? PHONES : CAMERAS);
    camera_model = models[skewed(m, models.length)];
  }
  const creator = (a.file_type === 'image' || a.file_type === 'document' || a.file_type === 'video') && m() < 0.35 ? CREATORS[skewed(m, CREATORS.length)] : null;
  return { taken_at, camera_model, creator };
}

export const ASSET_COLUMNS = ['workspace_id', 'folder_id', 'display_file_name', 'name_key', 'file_name', 'file_type', 'mime_type', 'file_size', 'width', 'height', 'orientation', 'tags', 'visibility', 'metadata', 'storage_key', 'created_by', 'created_at', 'modified_at', 'taken_at', 'camera_model', 'creator'];

/** Values in ASSET_COLUMNS order; half the assets sit in one of the folders. `m` draws the embedded metadata. */
export function assetValues(r, m, now, workspaceId, folderIds) {
  const a = makeAsset(r, now);
  const folder = folderIds.length && r() < 0.5 ? folderIds[Math.floor(r() * folderIds.length)] : null;
  const e = embeddedMetadata(m, a);
  return [workspaceId, folder, a.file_name, sortKey(a.file_name), a.file_name, a.file_type, a.mime_type, a.file_size, a.width, a.height, a.orientation, a.tags, a.visibility, '{}', null, 'bench', a.created_at, a.modified_at, e.taken_at, e.camera_model, e.creator];
}
