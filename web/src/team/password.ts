/** The shortest password the client offers to send (the server's registration rule, seed 2.4). */
export const MIN_PASSWORD = 8;

/** Why a new password and its confirmation cannot be sent yet, or null when they can. */
export function newPasswordProblem(password: string, confirm: string): 'empty' | 'short' | 'mismatch' | null {
  if (!password) return 'empty';
  if (password.length < MIN_PASSWORD) return 'short';
  if (password !== confirm) return 'mismatch';
  return null;
}
