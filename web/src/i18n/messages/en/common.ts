/** Area "common": words every page uses: buttons, states (loading, empty, error), time words. English is the source of truth (web/src/i18n/README.md). */
export default {
  brand: 'DAM',
  save: 'Save',
  saving: 'Saving…',
  cancel: 'Cancel',
  close: 'Close',
  retry: 'Retry',
  tryAgain: 'Try again',
  or: 'or',
  email: 'E-mail',
  name: 'Name',
  password: 'Password',
  goToLibrary: 'Go to the library',
  backToLibrary: '← Library',
  state: {
    loading: 'Loading…',
    error: 'Something went wrong',
    empty: 'Nothing here yet',
  },
  time: {
    justNow: 'just now',
    soon: 'soon',
    withinADay: 'within a day',
  },
  newPassword: {
    newLabel: 'New password',
    confirmLabel: 'Confirm new password',
    confirmPassword: 'Confirm password',
    atLeast: 'At least {n} characters.',
    differ: 'The two passwords differ.',
  },
};
