import { createHmac } from 'node:crypto';
import { openCursor, sealCursor } from '@gateway/crypto';
import { AppError } from '@gateway/errors';

/**
 * The edge seals every list cursor a service returns and opens it before passing it back, so a service only
 * ever receives positions it issued for the same tenant's same list (decisions.md: cursors are opaque). The
 * key derives from GATEWAY_ADMIN_TOKEN, a secret every edge replica shares: rotating that token invalidates
 * outstanding cursors (a 422; the client starts its listing again).
 */
export class ListCursors {
  private readonly key: Buffer;

  constructor(adminToken: string) {
    this.key = createHmac('sha256', adminToken).update('gateway list cursors v1').digest();
  }

  seal(scope: string[], position: string | undefined): string | null {
    return position ? sealCursor(this.key, scope.join('|'), position) : null;
  }

  /** The service's position, or a 422 naming `cursor`. */
  open(scope: string[], cursor: string | undefined): string | undefined {
    if (cursor === undefined) return undefined;
    const position = openCursor(this.key, scope.join('|'), cursor);
    if (position === undefined) throw AppError.invalidCursor(cursor, 'Invalid cursor: use the next_cursor of the previous page');
    return position;
  }
}
