import type { Messages } from '../en';

export default {
  brand: 'DAM',
  save: 'Enregistrer',
  saving: 'Enregistrement…',
  cancel: 'Annuler',
  close: 'Fermer',
  confirm: 'Confirmer',
  ok: 'OK',
  dismiss: 'Masquer',
  nothingToChoose: 'Il n’y a encore rien à choisir.',
  retry: 'Réessayer',
  tryAgain: 'Réessayer',
  or: 'ou',
  email: 'E-mail',
  name: 'Nom',
  password: 'Mot de passe',
  goToLibrary: 'Aller à la bibliothèque',
  actions: 'Actions',
  backToLibrary: '← Bibliothèque',
  state: {
    loading: 'Chargement…',
    error: 'Une erreur est survenue',
    empty: 'Rien ici pour l’instant',
  },
  time: {
    justNow: 'à l’instant',
    soon: 'bientôt',
    withinADay: 'dans moins d’un jour',
  },
  newPassword: {
    newLabel: 'Nouveau mot de passe',
    confirmLabel: 'Confirmer le nouveau mot de passe',
    confirmPassword: 'Confirmer le mot de passe',
    atLeast: 'Au moins {n} caractères.',
    differ: 'Les deux mots de passe sont différents.',
  },
} satisfies Messages['common'];
