import type { Messages } from '../en';

export default {
  problem: {
    unsafeName: 'nombre inseguro',
    symlink: 'enlace simbólico',
    specialFile: 'archivo especial',
    encrypted: 'cifrado',
    unsupportedCompression: 'compresión no compatible',
  },
  summary: {
    done: '{n} entrada importada (archivos y carpetas) | {n} entradas importadas (archivos y carpetas)',
    skipped: '{n} entrada importada (archivos y carpetas), {skipped} omitidas | {n} entradas importadas (archivos y carpetas), {skipped} omitidas',
    failed: '{n} entrada importada (archivos y carpetas), {failed} fallidas | {n} entradas importadas (archivos y carpetas), {failed} fallidas',
    skippedFailed:
      '{n} entrada importada (archivos y carpetas), {skipped} omitidas, {failed} fallidas | {n} entradas importadas (archivos y carpetas), {skipped} omitidas, {failed} fallidas',
  },
  invalid: 'Este archivo no es un ZIP legible, así que no se puede listar su contenido.',
  extracted: 'Extraído: {summary}',
  extractedSentence: 'Extraído: {summary}.',
  title: 'Contenido del archivo comprimido',
  extractToFolder: 'Extraer en una carpeta',
  extracting: 'Extrayendo… {percent} ({done} de {total} entradas)',
  openFolder: 'Abrir la carpeta',
  failed: 'La extracción falló.',
  failedReason: 'La extracción falló: {reason}.',
  reading: 'Leyendo el archivo comprimido…',
  listFailed: 'No se pudo listar el contenido',
  empty: 'El archivo comprimido está vacío.',
  entries: 'Entradas',
  notExtracted: 'No extraído: {problem}',
  downloadNamed: 'Descargar {name}',
  pickTitle: 'Extraer en una carpeta',
  folder: 'Carpeta',
  extract: 'Extraer',
  pickHint: 'Cada directorio del archivo comprimido se convierte en una carpeta y cada archivo en un recurso nuevo. Las entradas inseguras se omiten y se informan.',
} satisfies Messages['zip'];
