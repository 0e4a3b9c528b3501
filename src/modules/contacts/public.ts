import { contactSearchText } from './contacts.repository';

/**
 * What the contacts module offers other modules besides the providers its module exports: the contact search as
 * a part of the caller's own statement (a pool's member list filters by it in the statement that reads the page).
 */

/**
 * A sub-select of the ids of the workspace's contacts whose searched text (name, surname, email, phone) matches
 * the ILIKE pattern `pattern`, on the trigram index; `workspace` and `pattern` are SQL expressions of the calling
 * statement (parameters).
 */
export const contactIdsMatchingSql = (workspace: string, pattern: string): string =>
  `SELECT c.id FROM contacts c WHERE c.workspace_id = ${workspace} AND ${contactSearchText('c')} ILIKE ${pattern}`;
