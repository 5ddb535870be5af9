import { GraphError } from '../errors';

/**
 * The provider's Flows API refusals (provider reference §5.1). The codes are documented; the exact message
 * strings are not (reference §11), so these follow the titles SDKs give them.
 */
export const flowParameter = (details: string, userTitle?: string) =>
  new GraphError(400, 100, '(#100) Invalid parameter', { details, ...(userTitle ? { userTitle, userMsg: details } : {}) });

export const flowCantBeUpdated = (details: string) =>
  new GraphError(400, 139001, "(#139001) Flow can't be updated", { details, userTitle: "Flow can't be updated", userMsg: details });

export const publishRefused = (details: string) =>
  new GraphError(400, 139002, '(#139002) Publishing Flow in invalid state', { details, userTitle: "Flow can't be published", userMsg: details });

export const deprecateRefused = (details: string) =>
  new GraphError(400, 139003, "(#139003) Can't deprecate unpublished Flow", { details, userTitle: "Flow can't be deprecated", userMsg: details });

export const deleteRefused = (details: string) =>
  new GraphError(400, 139004, "(#139004) Can't delete published Flow", { details, userTitle: "Flow can't be deleted", userMsg: details });
