/**
 * What a secret value is replaced by in anything rendered, stored or shown: one marker for the
 * manifest's guard (a key typed into a var) and the service client's (a key the service echoes).
 */
export const REDACTED = '[REDACTED]';
