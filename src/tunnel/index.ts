/**
 * Public surface of the local tunnel: the server side (the hub the pipeline's tunnel step forwards to),
 * its reach across instances (REDIS_URL), and the client.
 */
export { TunnelHub, REFUSED_TEXT, type TunnelHubOptions, type RemoteTunnels } from './hub.js';
export type { TunnelClientInfo } from './peer.js';
export { isTunnelUpgrade, tunnelOriginProblem, TUNNEL_ROUTE } from './route.js';
export { runTunnel, type TunnelOptions, type TunnelHandle } from './client.js';
export {
  TunnelCluster,
  leaseKey,
  LEASE_TTL_MS,
  LEASE_RENEW_MS,
  type TunnelClusterOptions,
} from './cluster.js';
export { isHop } from './hop-server.js';
export {
  defaultInstanceUrl,
  headFrame,
  hopKeys,
  HOP_KEY_HEADER,
  HOP_PREFIX,
  HOP_SECRET_META,
  leaseOwner,
  readHead,
} from './hop-wire.js';
