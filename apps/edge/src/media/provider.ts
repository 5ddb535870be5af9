import type { ProviderClient } from '@gateway/provider-client';

/**
 * The provider calls the edge makes itself: the media API only (`connectProvider` of @gateway/provider-client,
 * with the client's token from the tenant directory). Media bytes go straight between the tenant and the
 * provider so that they cross no other hop (docs/media.md); every other provider call belongs to a service.
 */
export type MediaProvider = Pick<ProviderClient, 'uploadMedia' | 'mediaInfo' | 'downloadMedia' | 'deleteMedia' | 'close'>;
