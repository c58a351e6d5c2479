/** Roles of merchant staff. */
export const STAFF_ROLES = ["admin", "developer", "viewer"] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

/**
 * What each role may do in the dashboard. `viewer` reads; `developer` also manages keys and
 * endpoints, replays events and refunds; `admin` does everything, staff and settings included.
 */
export const ROLE_RANK = { viewer: 0, developer: 1, admin: 2 } as const satisfies Record<StaffRole, number>;

export function roleAllows(role: StaffRole, needed: StaffRole): boolean {
  return ROLE_RANK[role] >= ROLE_RANK[needed];
}

/** The dashboard's test/live switch, as a cookie: `live`, or anything else for test. */
export const MODE_COOKIE = "mari_mode";

/**
 * What a session cookie remembers of the password it signed in with: when it was last changed
 * (0 for never). A change or a reset moves it, which ends every session signed in before.
 */
export function passwordStamp(passwordChangedAt: Date | null): number {
  return passwordChangedAt?.getTime() ?? 0;
}
