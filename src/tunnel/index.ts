/** Public surface of the local tunnel: the server side, its pipeline step, and the client. */
export { TunnelHub, REFUSED_TEXT, type TunnelHubOptions, type TunnelClientInfo } from './hub.js';
export { tunnelStep } from './step.js';
export { isTunnelUpgrade, tunnelOriginProblem, TUNNEL_ROUTE } from './route.js';
export { runTunnel, type TunnelOptions, type TunnelHandle } from './client.js';
