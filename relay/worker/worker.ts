/**
 * The relay bridge as a Cloudflare Workers edge worker (docs/relay-worker.md).
 *
 * The worker itself keeps no state: plain HTTP is answered by the core's
 * routes, and everything about one Authority ID (its WebSocket upgrades and
 * its presence) goes to that ID's room, a Durable Object addressed by
 * `idFromName(authorityId)`, which accepts the WebSocket itself (hibernatable).
 * Authority IDs are validated before any object is addressed, so no object
 * exists for a malformed ID.
 */
import { CLOSE, createRelayCore, isAuthorityId, pathOf, RelayPolicyError, type RelayCore } from '../core/index.js';
import { describeRequest, isWebSocketUpgrade, toResponse } from './http.js';
import { SHARE_APP_SCRIPT } from './share-app.js';
import { closedSocketResponse, stringBindings, type DurableObjectNamespace, type DurableObjectStub } from './runtime.js';

export { RoomObject } from './room-object.js';

/** The Durable Object binding of wrangler.toml; every other string binding is a policy variable. */
export interface WorkerEnv {
  readonly ROOMS: DurableObjectNamespace;
}

/**
 * The worker's core, made once per `env` object, decides policy, upgrades
 * and the plain routes; it never holds a socket. An invalid policy variable
 * is kept as the error every request is answered with.
 */
const cores = new WeakMap<object, RelayCore | RelayPolicyError>();

function coreOf(env: WorkerEnv): RelayCore | RelayPolicyError {
  let core = cores.get(env);
  if (core === undefined) {
    try {
      const script = SHARE_APP_SCRIPT;
      core = createRelayCore({ env: stringBindings(env), ...(script === undefined ? {} : { shareScript: () => script }) });
    } catch (error) {
      if (!(error instanceof RelayPolicyError)) throw error;
      console.error(`relay worker: ${error.message}`);
      core = error;
    }
    cores.set(env, core);
  }
  return core;
}

function room(env: WorkerEnv, authorityId: string): DurableObjectStub {
  return env.ROOMS.get(env.ROOMS.idFromName(authorityId));
}

const PRESENCE = /^\/presence\/([^/]*)$/;

async function handleRequest(request: Request, env: WorkerEnv): Promise<Response> {
  const core = coreOf(env);
  if (core instanceof RelayPolicyError) {
    return Response.json({ error: 'invalid_configuration', variable: core.variable }, { status: 500 });
  }
  const described = describeRequest(request);
  if (isWebSocketUpgrade(request)) {
    const decision = core.upgrade(described);
    if (!decision.accept) return toResponse(decision.response);
    if (!isAuthorityId(decision.authorityId)) return closedSocketResponse(CLOSE.INVALID, 'invalid authority id');
    // The room accepts the client's socket itself: its 101 response (and the
    // socket in it) passes through untouched; nothing here lives on with it.
    return room(env, decision.authorityId).fetch(request);
  }
  // Presence is the room's to answer (its core applies the same policy); any
  // other route, or an invalid ID, is answered here.
  const presenceOf = PRESENCE.exec(pathOf(request.url))?.[1];
  if (presenceOf !== undefined && isAuthorityId(presenceOf)) return room(env, presenceOf).fetch(request);
  return toResponse(core.http(described));
}

export default { fetch: handleRequest };
