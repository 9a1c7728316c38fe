/**
 * The relay bridge core: policy, identifiers, message decoding, HTTP routes
 * and the room state machine, with no I/O and no Node or runtime imports
 * (WebCrypto only), so a Node server and a Cloudflare Durable Object drive the
 * same decisions. docs/relay-protocol.md is the protocol it implements.
 *
 * ## Use from an adapter
 *
 * ```ts
 * const core = createRelayCore({ env });            // throws RelayPolicyError naming a bad variable
 *
 * // plain HTTP request
 * const res = core.http({ method, url, origin });   // { status, headers, body }
 *
 * // WebSocket upgrade request
 * const d = core.upgrade({ method, url, origin });
 * if (!d.accept) respond(d.response);               // 404 unknown path, 403 origin refused
 * else accept, then apply(core.open(socketId, d.role, d.authorityId));
 *
 * apply(core.message(socketId, textOrBytes));       // Action[] or Promise<Action[]> (auth only)
 * apply(core.closed(socketId));                     // peer/network closed the socket
 * apply(core.timer(socketId));                      // a `set_timer` deadline passed
 * ```
 *
 * Actions, applied in order: `send` (text frame), `close` (code, reason; the
 * core has already forgotten the socket and ignores its later events),
 * `set_timer` (delayMs) and `clear_timer` for the Authority authentication
 * deadline. Socket IDs are strings the adapter chooses, unique while open.
 * Text frames are passed as strings, binary frames as bytes (refused, 4400).
 * An adapter should bound a frame to `core.policy.maxMessageBytes` itself too
 * and report an over-long frame as close code 4400.
 *
 * `core.stats()` counts rooms and sockets; `core.snapshot(id)` /
 * `core.restore(id, snapshot)` rebuild socket state after an adapter lost its
 * memory (hibernation).
 *
 * Options besides `env`/`policy`: `now` (ms clock for rate buckets and
 * deadlines), `random` (fills byte arrays; nonces and session IDs), `verify`
 * (Ed25519; default WebCrypto), `sharePage` / `shareScript` / `shareCsp`
 * (default: `relay/share/page.ts`, itself runtime-neutral; a worker that
 * cannot read files calls its `setShareAppScript()` or passes `shareScript`).
 */
import { parsePolicy, type RelayPolicy } from './policy.js';
import { RelayCore, type RelayCoreOptions } from './room.js';

export {
  base64urlDecode,
  base64urlEncode,
  isAuthorityId,
  isBase64url,
  isSessionIdShape,
  isShareCode,
  webCryptoRandom,
  AUTHORITY_ID_LENGTH,
  SESSION_ID_LENGTH,
  type RandomSource,
} from './ids.js';
export {
  isRelayPolicyError,
  MIN_MESSAGE_BYTES,
  parsePolicy,
  POLICY_DEFAULTS,
  RelayPolicyError,
  type BridgeMode,
  type OriginPolicy,
  type PolicyVariable,
  type PresenceVisibility,
  type RelayPolicy,
} from './policy.js';
export {
  CLOSE,
  PROTO,
  decodeAuthorityFirst,
  decodeAuthorityMessage,
  decodeConsumerMessage,
  decodeFrame,
  fitsInBytes,
  type CloseCode,
  type Frame,
} from './messages.js';
export {
  BRIDGE_IDENTITY,
  decideUpgrade,
  handleHttp,
  originAllowed,
  pathOf,
  PLACEHOLDER_SHARE_PAGE,
  SHARE_SCRIPT_PATH,
  type HttpContext,
  type HttpRequest,
  type HttpResponse,
  type UpgradeDecision,
} from './http.js';
export {
  authSigningInput,
  ENDED_SESSIONS_REMEMBERED,
  HEARD_STEP_MS,
  RelayCore,
  webCryptoVerify,
  type Action,
  type Outcome,
  type RelayCoreOptions,
  type RelayStats,
  type Role,
  type SignatureVerifier,
  type SocketId,
  type SocketSnapshot,
} from './room.js';

export type CreateRelayCoreOptions = Omit<RelayCoreOptions, 'policy'> &
  ({ readonly policy: RelayPolicy; readonly env?: never } | { readonly env?: Readonly<Record<string, string | undefined>>; readonly policy?: never });

/** A core from a parsed policy or from environment variables (validated; throws `RelayPolicyError`). */
export function createRelayCore(options: CreateRelayCoreOptions = {}): RelayCore {
  const { env, policy, ...rest } = options;
  return new RelayCore({ ...rest, policy: policy ?? parsePolicy(env ?? {}) });
}
