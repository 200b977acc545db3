#!/usr/bin/env node
// The two screenshots of the README (docs/images/library.png and docs/images/asset.png): the built server
// (dist/server.js, web/dist) on a throwaway SQLite data dir, a workspace seeded through the API with generated
// photos, folders and a collection, then Debian's chromium (CHROMIUM_PATH overrides) at 1280 px, light scheme.
// Run after `npm run build`: node scripts/docs-screenshots.mjs [--out docs/images]
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { chromium } from 'playwright-core';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outArg = process.argv.indexOf('--out');
const outDir = path.resolve(root, outArg > 0 ? process.argv[outArg + 1] : 'docs/images');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
for (const needed of [path.join(root, 'dist', 'server.js'), path.join(root, 'web', 'dist', 'index.html'), CHROMIUM]) {
  if (!existsSync(needed)) throw new Error(`${needed} is missing: run npm run build (and apt-get install chromium) first`);
}

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A landscape "photo": sky, sun, three ridges, a lake; colours from the palette. */
function landscapeSvg(w, h, p) {
  const ridge = (y, amp, phase, color) => {
    let d = `M0 ${h} L0 ${y}`;
    for (let x = 0; x <= w; x += w / 12) d += ` L${x.toFixed(0)} ${(y - amp * Math.abs(Math.sin(x / w * 5 + phase))).toFixed(0)}`;
    return `<path d="${d} L${w} ${h} Z" fill="${color}"/>`;
  };
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">
    <defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${p.sky[0]}"/><stop offset="1" stop-color="${p.sky[1]}"/></linearGradient>
    <radialGradient id="sun"><stop offset="0" stop-color="${p.sun}"/><stop offset="1" stop-color="${p.sun}" stop-opacity="0"/></radialGradient></defs>
    <rect width="${w}" height="${h}" fill="url(#sky)"/>
    <circle cx="${w * p.sunX}" cy="${h * 0.35}" r="${h * 0.3}" fill="url(#sun)"/><circle cx="${w * p.sunX}" cy="${h * 0.35}" r="${h * 0.07}" fill="${p.sun}"/>
    ${ridge(h * 0.55, h * 0.18, p.phase, p.ridges[0])}${ridge(h * 0.68, h * 0.12, p.phase + 1.7, p.ridges[1])}${ridge(h * 0.8, h * 0.08, p.phase + 3.1, p.ridges[2])}
    <rect y="${h * 0.86}" width="${w}" height="${h * 0.14}" fill="${p.water}" opacity="0.85"/></svg>`;
}

/** A "product shot": a gradient studio backdrop and a few soft shapes. */
function productSvg(w, h, p) {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">
    <defs><radialGradient id="bg" cx="0.5" cy="0.4" r="0.8"><stop offset="0" stop-color="${p.sky[1]}"/><stop offset="1" stop-color="${p.sky[0]}"/></radialGradient></defs>
    <rect width="${w}" height="${h}" fill="url(#bg)"/>
    <ellipse cx="${w / 2}" cy="${h * 0.8}" rx="${w * 0.28}" ry="${h * 0.05}" fill="#000" opacity="0.18"/>
    <rect x="${w * 0.36}" y="${h * 0.25}" width="${w * 0.28}" height="${h * 0.52}" rx="${w * 0.04}" fill="${p.ridges[0]}"/>
    <rect x="${w * 0.4}" y="${h * 0.18}" width="${w * 0.2}" height="${h * 0.1}" rx="${w * 0.02}" fill="${p.ridges[1]}"/>
    <circle cx="${w * 0.5}" cy="${h * 0.5}" r="${h * 0.1}" fill="${p.sun}"/></svg>`;
}

const PALETTES = {
  dawn: { sky: ['#f6d365', '#fda085'], sun: '#fff4d6', ridges: ['#b56576', '#6d597a', '#355070'], water: '#457b9d', sunX: 0.7, phase: 0.3 },
  alpine: { sky: ['#a1c4fd', '#c2e9fb'], sun: '#ffffff', ridges: ['#8d99ae', '#52796f', '#2f3e46'], water: '#1d3557', sunX: 0.25, phase: 1.1 },
  dusk: { sky: ['#3a1c71', '#ffaf7b'], sun: '#ffd6a5', ridges: ['#6a4c93', '#3d2c5a', '#1b1b3a'], water: '#2b2d42', sunX: 0.5, phase: 2.2 },
  meadow: { sky: ['#d4fc79', '#96e6a1'], sun: '#fffbe6', ridges: ['#90be6d', '#43aa8b', '#277da1'], water: '#577590', sunX: 0.8, phase: 0.8 },
  coast: { sky: ['#89f7fe', '#66a6ff'], sun: '#fffde7', ridges: ['#e9c46a', '#f4a261', '#2a9d8f'], water: '#264653', sunX: 0.35, phase: 2.9 },
  desert: { sky: ['#fceabb', '#f8b500'], sun: '#fff8e1', ridges: ['#e76f51', '#bc6c25', '#8c4f2b'], water: '#6d4c41', sunX: 0.6, phase: 1.9 },
  night: { sky: ['#0f2027', '#2c5364'], sun: '#e0e1dd', ridges: ['#415a77', '#1b263b', '#0d1b2a'], water: '#0b132b', sunX: 0.75, phase: 0.5 },
  forest: { sky: ['#c1dfc4', '#deecdd'], sun: '#fefae0', ridges: ['#606c38', '#283618', '#1b2613'], water: '#3a5a40', sunX: 0.2, phase: 2.5 },
  studioBlue: { sky: ['#1e3c72', '#2a5298'], sun: '#ffd166', ridges: ['#f8f9fa', '#adb5bd'], water: '', sunX: 0, phase: 0 },
  studioRose: { sky: ['#ee9ca7', '#ffdde1'], sun: '#ffffff', ridges: ['#6d6875', '#b5838d'], water: '', sunX: 0, phase: 0 },
  studioMint: { sky: ['#43cea2', '#b2fefa'], sun: '#ff6b6b', ridges: ['#212529', '#495057'], water: '', sunX: 0, phase: 0 },
  studioSand: { sky: ['#c79081', '#dfa579'], sun: '#264653', ridges: ['#fefae0', '#e9edc9'], water: '', sunX: 0, phase: 0 },
};

const PHOTOS = [
  { name: 'lake-at-dawn.jpg', palette: 'dawn', kind: 'landscape', folder: 'Campaign 2026', tags: ['lake', 'dawn', 'hero'], exif: true },
  { name: 'alpine-ridge.jpg', palette: 'alpine', kind: 'landscape', folder: 'Campaign 2026', tags: ['mountains', 'snow'] },
  { name: 'dusk-over-the-bay.jpg', palette: 'dusk', kind: 'landscape', folder: 'Campaign 2026', tags: ['dusk', 'coast'] },
  { name: 'spring-meadow.jpg', palette: 'meadow', kind: 'landscape', tags: ['spring', 'meadow'] },
  { name: 'coastline-aerial.jpg', palette: 'coast', kind: 'landscape', tags: ['coast', 'summer'] },
  { name: 'dunes-afternoon.jpg', palette: 'desert', kind: 'landscape', tags: ['desert'] },
  { name: 'night-ridge.jpg', palette: 'night', kind: 'landscape', tags: ['night', 'mountains'] },
  { name: 'pine-forest.jpg', palette: 'forest', kind: 'landscape', tags: ['forest'] },
  { name: 'bottle-blue.jpg', palette: 'studioBlue', kind: 'product', folder: 'Product shots', tags: ['product', 'bottle'] },
  { name: 'bottle-rose.jpg', palette: 'studioRose', kind: 'product', folder: 'Product shots', tags: ['product', 'bottle'] },
  { name: 'speaker-mint.jpg', palette: 'studioMint', kind: 'product', folder: 'Product shots', tags: ['product'] },
  { name: 'lamp-sand.jpg', palette: 'studioSand', kind: 'product', folder: 'Product shots', tags: ['product', 'lamp'] },
];

async function photo(spec) {
  const [w, h] = spec.kind === 'landscape' ? [1800, 1200] : [1400, 1400];
  const svg = (spec.kind === 'landscape' ? landscapeSvg : productSvg)(w, h, PALETTES[spec.palette]);
  let image = sharp(Buffer.from(svg)).jpeg({ quality: 86 });
  if (spec.exif) {
    image = image.withExif({
      IFD0: {
        Make: 'Fujifilm',
        Model: 'X-T5',
        Artist: 'Ada Lovelace',
        Copyright: '© 2026 Northwind Studio',
        ImageDescription: 'First light over the lake, for the spring campaign',
      },
    });
  }
  return image.toBuffer();
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'dam-docs-shots-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const server = spawn(process.execPath, [path.join(root, 'dist', 'server.js')], {
  cwd: root,
  stdio: ['ignore', 'inherit', 'inherit'],
  env: {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PORT: String(port),
    HOST: '127.0.0.1',
    DAM_DATA_DIR: dataDir,
    DAM_PUBLIC_URL: base,
    DAM_ALLOW_REGISTRATION: 'true',
    LOG_LEVEL: 'warn',
  },
});

async function api(method, url, token, body) {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return JSON.parse(text);
}

try {
  for (let i = 0; ; i += 1) {
    if (i > 150) throw new Error('the server did not become ready within 30 s');
    if (await fetch(`${base}/readyz`).then((r) => r.ok, () => false)) break;
    await sleep(200);
  }
  const session = await api('POST', '/auth/register', undefined, { email: 'ada@example.com', password: 'a long password', name: 'Ada Lovelace' });
  const { token } = session;
  const ws = session.workspaces[0].id;
  await api('PATCH', `/workspaces/${ws}`, token, { name: 'Northwind Studio' });
  const folders = {};
  for (const name of ['Campaign 2026', 'Events', 'Press kit', 'Product shots']) {
    folders[name] = (await api('POST', '/dam/folders', token, { workspace_id: ws, name })).data.id;
  }
  const ids = {};
  for (const spec of PHOTOS) {
    const form = new FormData();
    form.set('workspaceId', String(ws));
    form.set('tags', JSON.stringify(spec.tags));
    if (spec.folder) form.set('folder_id', String(folders[spec.folder]));
    form.set('file', new Blob([await photo(spec)], { type: 'image/jpeg' }), spec.name);
    const res = await fetch(`${base}/api/upload-asset`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    if (res.status !== 201) throw new Error(`upload ${spec.name}: ${res.status} ${await res.text()}`);
    ids[spec.name] = (await res.json()).data.id;
  }
  const hero = ids['lake-at-dawn.jpg'];
  await api('PATCH', `/dam/assets/${hero}`, token, { display_file_name: 'Lake at dawn' });
  const collection = (await api('POST', '/dam/collections', token, { workspace_id: ws, name: 'Spring launch' })).data.id;
  await api('POST', `/dam/collections/${collection}/assets`, token, {
    asset_ids: [hero, ids['spring-meadow.jpg'], ids['bottle-rose.jpg']],
  });
  await api('POST', '/dam/collections', token, { workspace_id: ws, name: 'Website' });

  // Thumbnails, previews and the embedded metadata are background jobs: wait for every version's preview.
  for (let i = 0; ; i += 1) {
    if (i > 300) throw new Error('previews were not ready within 60 s');
    const states = await Promise.all(Object.values(ids).map((id) => api('GET', `/dam/assets/${id}/versions`, token)));
    const heroAsset = (await api('GET', `/dam/assets/${hero}`, token)).data ?? {};
    if (states.every((versions) => versions[0]?.preview_status === 'ready') && (heroAsset.metadata_version_id || i > 100)) break;
    await sleep(200);
  }

  mkdirSync(outDir, { recursive: true });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 650 }, locale: 'en-GB', colorScheme: 'light' });
    const stored = JSON.stringify({ token, user: session.user, workspaces: [{ ...session.workspaces[0], name: 'Northwind Studio' }] });
    await context.addInitScript({
      content: `localStorage.setItem('dam.session', ${JSON.stringify(stored)}); localStorage.setItem('dam.workspace', ${JSON.stringify(String(ws))});`,
    });
    const page = await context.newPage();
    const settle = async () => {
      await page.waitForLoadState('networkidle');
      await page.waitForFunction('Array.from(document.images).every((img) => img.complete)');
      await page.waitForTimeout(400);
    };
    const shoot = async (name) => {
      const png = await page.screenshot();
      // A palette PNG keeps the page sharp at a fraction of the bytes.
      const small = await sharp(png).png({ palette: true, quality: 90, compressionLevel: 9, effort: 10 }).toBuffer();
      writeFileSync(path.join(outDir, `${name}.png`), small);
      process.stdout.write(`${path.relative(root, path.join(outDir, `${name}.png`))}: ${Math.round(small.length / 1024)} KiB\n`);
    };
    await page.goto(`${base}/library`);
    await page.getByText('lake-at-dawn.jpg').or(page.getByText('Lake at dawn')).first().waitFor();
    await settle();
    await shoot('library');
    await page.setViewportSize({ width: 1280, height: 1000 });
    await page.goto(`${base}/asset/${hero}`);
    await page.getByRole('heading', { name: 'Lake at dawn' }).waitFor();
    await settle();
    await shoot('asset');
  } finally {
    await browser.close();
  }
} finally {
  server.kill('SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
  rmSync(dataDir, { recursive: true, force: true });
}
