/** Public surface of the endpoint plane: the door every endpoint request goes through. */
export { endpointPlane, NAME_MAX, type Plane, type PlaneOptions } from './door.js';
export { sentType } from './write.js';
export { grpcDoor, isGrpcWebRequest, type GrpcDoor, type GrpcDoorOptions } from './grpc-door.js';
