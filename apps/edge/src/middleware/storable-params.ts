import type { Context, Next } from 'koa';
import { AppError, type ValidationIssue } from '@gateway/errors';
import { isStorableText, unstorableTextIssues } from '../storable-text';

/**
 * Path segments and query parameters hold only text PostgreSQL can store (`%00` would otherwise reach a
 * query as a NUL and fail there). Runs before routing, so no route can forget it; the path's parameter
 * names are not known yet, so a path problem is located at `path`.
 */
export async function storableParams(ctx: Context, next: Next): Promise<void> {
  const issues: ValidationIssue[] = [];
  for (const segment of ctx.path.split('/')) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      continue; // not percent-decodable: the router matches it as is, and the route's schema refuses it
    }
    if (!isStorableText(decoded)) {
      issues.push({
        loc: ['path'],
        msg: 'Text must not contain NUL characters or unpaired surrogates',
        type: 'string_unstorable',
        input: segment.slice(0, 64),
        ctx: {},
      });
      break;
    }
  }
  issues.push(...unstorableTextIssues({ ...ctx.query }, ['query']));
  if (issues.length) throw AppError.validation(issues);
  await next();
}
