import type { Messages } from '../en';

export default {
  brand: 'DAM',
  save: 'Speichern',
  saving: 'Wird gespeichert…',
  cancel: 'Abbrechen',
  close: 'Schließen',
  confirm: 'Bestätigen',
  ok: 'OK',
  dismiss: 'Ausblenden',
  nothingToChoose: 'Es gibt noch nichts zur Auswahl.',
  retry: 'Erneut versuchen',
  tryAgain: 'Noch einmal versuchen',
  or: 'oder',
  email: 'E-Mail',
  name: 'Name',
  password: 'Passwort',
  goToLibrary: 'Zur Bibliothek',
  actions: 'Aktionen',
  backToLibrary: '← Bibliothek',
  state: {
    loading: 'Wird geladen…',
    error: 'Etwas ist schiefgelaufen',
    empty: 'Hier ist noch nichts',
  },
  time: {
    justNow: 'gerade eben',
    soon: 'in Kürze',
    withinADay: 'innerhalb eines Tages',
  },
  newPassword: {
    newLabel: 'Neues Passwort',
    confirmLabel: 'Neues Passwort bestätigen',
    confirmPassword: 'Passwort bestätigen',
    atLeast: 'Mindestens {n} Zeichen.',
    differ: 'Die beiden Passwörter stimmen nicht überein.',
  },
} satisfies Messages['common'];
