/**
 * The behaviour suite against the Node adapter, plus what only the Node
 * adapter has (the `ws` frame limits, the command line).
 */
import { startNodeBridge } from '../../relay/node/server.js';
import { defineBehaviourSuite } from './behaviour/suite.js';

defineBehaviourSuite('relay bridge (node adapter)', async (env) => {
  const bridge = await startNodeBridge({ port: 0, env });
  return { url: bridge.url, close: () => bridge.close(), roomCount: () => bridge.stats().rooms };
});
