/** gRPC mocking (SPEC §13): the wire, the descriptors an endpoint uploads, reflection. */
export * from './types.js';
