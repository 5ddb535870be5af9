import type Router from '@koa/router';
import type { Logger } from '@gateway/logger';
import type { ApiKeyCache } from '../auth';
import type { EdgeConfig } from '../config';
import type { MediaProvider } from '../media/provider';
import type { Services } from '../services';

/** What route modules get. Each module registers its routes on the router it is given. */
export interface RouteDeps {
  config: EdgeConfig;
  services: Services;
  logger: Logger;
  keys: ApiKeyCache;
  /** The provider's media API, for /api/media (the one provider port of the edge). */
  media: MediaProvider;
  /** Publisher onto the bus (inbound provider webhooks); undefined until connected. */
  bus?: import('@gateway/bus').Bus;
  /** The open live streams (GET /api/stream), ended when the edge stops. */
  streams?: import('./stream').LiveStreams;
}

export type RegisterRoutes = (router: Router, deps: RouteDeps) => void;
