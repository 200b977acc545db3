import type { Messages } from '../en';

export default {
  problem: {
    unsafeName: 'nom dangereux',
    symlink: 'lien symbolique',
    specialFile: 'fichier spécial',
    encrypted: 'chiffré',
    unsupportedCompression: 'compression non prise en charge',
  },
  summary: {
    done: '{n} entrée importée (fichiers et dossiers) | {n} entrées importées (fichiers et dossiers)',
    skipped: '{n} entrée importée (fichiers et dossiers), {skipped} ignorée(s) | {n} entrées importées (fichiers et dossiers), {skipped} ignorée(s)',
    failed: '{n} entrée importée (fichiers et dossiers), {failed} en échec | {n} entrées importées (fichiers et dossiers), {failed} en échec',
    skippedFailed:
      '{n} entrée importée (fichiers et dossiers), {skipped} ignorée(s), {failed} en échec | {n} entrées importées (fichiers et dossiers), {skipped} ignorée(s), {failed} en échec',
  },
  invalid: 'Ce fichier n’est pas une archive ZIP lisible : son contenu ne peut pas être listé.',
  extracted: 'Extrait : {summary}',
  extractedSentence: 'Extrait : {summary}.',
  title: 'Contenu de l’archive',
  extractToFolder: 'Extraire dans un dossier',
  extracting: 'Extraction… {percent} ({done} entrées sur {total})',
  openFolder: 'Ouvrir le dossier',
  failed: 'L’extraction a échoué.',
  failedReason: 'L’extraction a échoué : {reason}.',
  reading: 'Lecture de l’archive…',
  listFailed: 'Le contenu n’a pas pu être listé',
  empty: 'L’archive est vide.',
  entries: 'Entrées',
  notExtracted: 'Non extrait : {problem}',
  downloadNamed: 'Télécharger {name}',
  pickTitle: 'Extraire dans un dossier',
  folder: 'Dossier',
  extract: 'Extraire',
  pickHint: 'Chaque répertoire de l’archive devient un dossier, chaque fichier une nouvelle ressource. Les entrées dangereuses sont ignorées et signalées.',
} satisfies Messages['zip'];
