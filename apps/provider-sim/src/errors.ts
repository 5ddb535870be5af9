import { randomBytes } from 'node:crypto';

/** A provider error answer: HTTP status and the Graph error envelope (provider reference §0.1). */
export class GraphError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly opts: {
      type?: string;
      subcode?: number;
      details?: string;
      userTitle?: string;
      userMsg?: string;
      traceId?: string;
      isTransient?: boolean;
      plainErrorData?: boolean;
    } = {},
  ) {
    super(message);
  }

  body() {
    return {
      error: {
        message: this.message,
        type: this.opts.type ?? 'OAuthException',
        code: this.code,
        ...(this.opts.subcode !== undefined ? { error_subcode: this.opts.subcode } : {}),
        ...(this.opts.details !== undefined
          ? { error_data: this.opts.plainErrorData ? this.opts.details : { messaging_product: 'whatsapp', details: this.opts.details } }
          : {}),
        ...(this.opts.userTitle ? { error_user_title: this.opts.userTitle } : {}),
        ...(this.opts.userMsg ? { error_user_msg: this.opts.userMsg } : {}),
        ...(this.opts.isTransient !== undefined ? { is_transient: this.opts.isTransient } : {}),
        fbtrace_id: this.opts.traceId ?? randomBytes(9).toString('base64url'),
      },
    };
  }
}

export const invalidParameter = (details: string) => new GraphError(400, 100, '(#100) Invalid parameter', { details });
export const parameterValueInvalid = (details: string) => new GraphError(400, 131009, '(#131009) Parameter value is not valid', { details });
export const requiredParameterMissing = (details: string) => new GraphError(400, 131008, '(#131008) Required parameter is missing', { details });
export const invalidToken = () => new GraphError(401, 190, 'Invalid OAuth access token - Cannot parse access token', { subcode: 463 });
export const expiredToken = () =>
  new GraphError(401, 190, 'Error validating access token: Session has expired.', { subcode: 463, details: 'The access token expired; issue a new one' });
export const unknownObject = (id: string, method = 'post') =>
  new GraphError(
    400,
    100,
    `Unsupported ${method} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api`,
    { type: 'GraphMethodException', subcode: 33 },
  );
