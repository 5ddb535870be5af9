/*
 * Identifiers and URLs every route's schemas use. They are defined once, with the message kinds' fields
 * (@gateway/message-kinds), so a client id or a recipient is checked alike on every route.
 */
export { bsuid, clientId, httpUrl, httpsUrl, phone, providerId, uuid } from '@gateway/message-kinds';
