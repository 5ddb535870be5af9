export { SecretBox, resolveSecretsKey } from './secrets';
export { sealCursor, openCursor } from './cursor';
export { signatureHeader, verifySignatureHeader, constantTimeEqual, secretMatcher, sha256Hex, randomToken, deterministicUuid } from './signing';
export { newWebhookSecret, standardWebhookSignature } from './standard-webhooks';
