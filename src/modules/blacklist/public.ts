/**
 * What the blacklist module offers other modules besides the providers its module exports (BlacklistService): the
 * do-not-contact check as a part of the caller's own statement, for reads a caller sends anyway (an inbound
 * message's route), so the check costs no round trip of its own.
 */

/**
 * Whether an entry in force covers the phone number `phone` of the workspace `workspace` (SQL expressions of the
 * calling statement), as a boolean expression: `BlacklistService.isBlacklisted` for a phone, inside another
 * statement.
 */
export const phoneBlacklistedSql = (workspace: string, phone: string): string =>
  `EXISTS (SELECT 1 FROM blacklist_entries e
            WHERE e.workspace_id = ${workspace} AND (e.is_permanent OR e.expires_at > now())
              AND e.type IN ('Phone', 'Both') AND e.phone_number = ${phone})`;
