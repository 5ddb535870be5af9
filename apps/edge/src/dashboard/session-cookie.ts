import type { Context } from 'koa';

/**
 * The dashboard's session cookie: HttpOnly (scripts never see the token), SameSite=Strict (never sent on a
 * request another site starts), Path=/ (it authenticates /api calls too). Behind an https public URL it is
 * Secure and carries the __Host- prefix, so no subdomain and no plain-http page can set or read it.
 */
export class SessionCookie {
  readonly name: string;
  private readonly secure: boolean;

  constructor(publicBaseUrl: string) {
    this.secure = new URL(publicBaseUrl).protocol === 'https:';
    this.name = this.secure ? '__Host-gw_session' : 'gw_session';
  }

  read(ctx: Context): string | undefined {
    const v = ctx.cookies.get(this.name, { signed: false });
    return v && /^[\x21-\x7e]{1,256}$/.test(v) ? v : undefined;
  }

  set(ctx: Context, token: string, expiresAt: Date): void {
    const maxAge = Math.max(0, Math.floor((expiresAt.getTime() - Date.now()) / 1000));
    ctx.append('Set-Cookie', this.header(token, maxAge));
  }

  clear(ctx: Context): void {
    ctx.append('Set-Cookie', this.header('', 0));
  }

  private header(value: string, maxAge: number): string {
    return [`${this.name}=${value}`, 'Path=/', `Max-Age=${maxAge}`, 'HttpOnly', 'SameSite=Strict', ...(this.secure ? ['Secure'] : [])].join('; ');
  }
}
