/**
 * An email address as it is stored and compared everywhere (users, invitations, sign-in): without
 * surrounding spaces, lower-cased. The one place this rule lives.
 */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
