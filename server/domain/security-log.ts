/**
 * The security log: who changed who may act for a merchant, and how (team, passwords, sessions,
 * API keys, webhook endpoints, settings), and every sign-in to its dashboard. Each entry is
 * written in the transaction of the change it records, so a change that rolled back left none.
 * It is not the API's event log: nothing here is sent to webhooks.
 */
export const SECURITY_ACTIONS = [
  "staff.signed_in",
  "staff.sign_in_failed",
  "staff.added",
  "staff.removed",
  "staff.role_changed",
  "staff.password_changed",
  "staff.password_reset",
  "staff.signed_out_everywhere",
  "api_key.created",
  "api_key.revoked",
  "webhook_endpoint.created",
  "webhook_endpoint.updated",
  "webhook_endpoint.deleted",
  "webhook_endpoint.secret_rolled",
  "settings.updated",
] as const;
export type SecurityAction = (typeof SECURITY_ACTIONS)[number];

/** What each entry says happened, as the dashboard words it. */
export const SECURITY_ACTION_TEXT: Record<SecurityAction, string> = {
  "staff.signed_in": "Signed in",
  "staff.sign_in_failed": "Wrong password at sign-in",
  "staff.added": "Added a team member",
  "staff.removed": "Removed a team member",
  "staff.role_changed": "Changed a role",
  "staff.password_changed": "Changed their password",
  "staff.password_reset": "Reset a password",
  "staff.signed_out_everywhere": "Signed out everywhere",
  "api_key.created": "Created an API key",
  "api_key.revoked": "Revoked an API key",
  "webhook_endpoint.created": "Added a webhook endpoint",
  "webhook_endpoint.updated": "Changed a webhook endpoint",
  "webhook_endpoint.deleted": "Deleted a webhook endpoint",
  "webhook_endpoint.secret_rolled": "Rolled a webhook signing secret",
  "settings.updated": "Changed the settings",
};

/** Who did it, as recorded: kept as it was then, since people and keys come and go. */
export const SECURITY_ACTOR_TYPES = ["staff", "api_key", "system", "anonymous"] as const;
export type SecurityActorType = (typeof SECURITY_ACTOR_TYPES)[number];

/** What an entry adds about its change (a role's old and new value, a key's kind): JSON. */
export type SecurityDetail = Record<string, unknown>;

/** The fields of a change that differ, each as `{ from, to }`, for an entry's detail. */
export function changedFields<T extends Record<string, unknown>>(before: T, after: Partial<T>): Record<string, { from: unknown; to: unknown }> {
  const changed: Record<string, { from: unknown; to: unknown }> = {};
  for (const [name, to] of Object.entries(after)) {
    if (to === undefined) continue;
    const from = before[name];
    if (JSON.stringify(from) !== JSON.stringify(to)) changed[name] = { from, to };
  }
  return changed;
}
