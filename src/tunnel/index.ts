/** Public surface of the local tunnel: the server side (the hub the pipeline's tunnel step forwards to) and the client. */
export { TunnelHub, REFUSED_TEXT, type TunnelHubOptions, type TunnelClientInfo } from './hub.js';
export { isTunnelUpgrade, tunnelOriginProblem, TUNNEL_ROUTE } from './route.js';
export { runTunnel, type TunnelOptions, type TunnelHandle } from './client.js';
