/**
 * The reference relay clients (docs/relay-clients.md): runtime-neutral
 * TypeScript on WebCrypto and the standard WebSocket.
 */
export {
  AuthorityClient,
  REJECTION_CLOSE_CODES,
  type AuthorityClientOptions,
  type AuthorityNotification,
  type AuthoritySession,
  type AuthorityStatus,
  type BackoffOptions,
} from './authority-client.js';
export {
  ConsumerClient,
  CONSUMER_KEEPALIVE_MS,
  CONSUMER_REFUSAL_CLOSE_CODE,
  type ConsumerClientOptions,
  type ConsumerCloseInfo,
  type ConsumerState,
} from './consumer-client.js';
export {
  acceptAuthorityHello,
  answerConsumerHello,
  decodeConsumerHello,
  deriveChannel,
  E2EChannel,
  E2EError,
  encodeConsumerHello,
  generateEphemeralKey,
  helloTranscript,
  type E2ERole,
  type EphemeralKey,
  type Lane,
} from './e2e.js';
export {
  AUTHORITY_ID_PATTERN,
  authChallengeText,
  authorityIdFromPublicKey,
  authorityPublicKeyBytes,
  exportAuthorityKey,
  generateAuthorityKey,
  importAuthorityKey,
  importAuthorityPublicKey,
  isAuthorityId,
  signText,
  verifyText,
  type AuthorityKey,
} from './keys.js';
export { decodeBase64url, encodeBase64url, isBase64urlOfLength } from './base64url.js';
export { bridgeSocketUrl, realTimers, type Timers, type WebSocketFactory, type WebSocketLike } from './socket.js';
