import type { Messages } from '../en';

export default {
  problem: {
    unsafeName: 'unsicherer Name',
    symlink: 'symbolischer Link',
    specialFile: 'Spezialdatei',
    encrypted: 'verschlüsselt',
    unsupportedCompression: 'nicht unterstützte Komprimierung',
  },
  summary: {
    done: '{n} Eintrag importiert (Dateien und Ordner) | {n} Einträge importiert (Dateien und Ordner)',
    skipped: '{n} Eintrag importiert (Dateien und Ordner), {skipped} übersprungen | {n} Einträge importiert (Dateien und Ordner), {skipped} übersprungen',
    failed: '{n} Eintrag importiert (Dateien und Ordner), {failed} fehlgeschlagen | {n} Einträge importiert (Dateien und Ordner), {failed} fehlgeschlagen',
    skippedFailed:
      '{n} Eintrag importiert (Dateien und Ordner), {skipped} übersprungen, {failed} fehlgeschlagen | {n} Einträge importiert (Dateien und Ordner), {skipped} übersprungen, {failed} fehlgeschlagen',
  },
  invalid: 'Diese Datei ist kein lesbares ZIP-Archiv, daher kann ihr Inhalt nicht aufgelistet werden.',
  extracted: 'Entpackt: {summary}',
  extractedSentence: 'Entpackt: {summary}.',
  title: 'Inhalt des Archivs',
  extractToFolder: 'In einen Ordner entpacken',
  extracting: 'Wird entpackt… {percent} ({done} von {total} Einträgen)',
  openFolder: 'Ordner öffnen',
  failed: 'Das Entpacken ist fehlgeschlagen.',
  failedReason: 'Das Entpacken ist fehlgeschlagen: {reason}.',
  reading: 'Archiv wird gelesen…',
  listFailed: 'Der Inhalt konnte nicht aufgelistet werden',
  empty: 'Das Archiv ist leer.',
  entries: 'Einträge',
  notExtracted: 'Nicht entpackt: {problem}',
  downloadNamed: '{name} herunterladen',
  pickTitle: 'In einen Ordner entpacken',
  folder: 'Ordner',
  extract: 'Entpacken',
  pickHint: 'Jedes Verzeichnis des Archivs wird ein Ordner, jede Datei ein neues Asset. Unsichere Einträge werden übersprungen und gemeldet.',
} satisfies Messages['zip'];
