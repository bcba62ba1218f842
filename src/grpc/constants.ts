/**
 * The gRPC capability's constants that the rest of the service reads at start: kept apart from the
 * protobuf runtime (runtime.ts), which is loaded on the first call or upload that needs it.
 */

/** Largest upload (a `.proto` or a descriptor set) in bytes: 2.5 MiB. */
export const GRPC_SPEC_LIMIT = 2.5 * 1024 * 1024;

/** The reflection services' full names, by version. */
export const REFLECTION_SERVICE = {
  v1: 'grpc.reflection.v1.ServerReflection',
  v1alpha: 'grpc.reflection.v1alpha.ServerReflection',
} as const;

/** The two method paths reflection answers: v1 first, then v1alpha. */
export const REFLECTION_PATHS = [
  `/${REFLECTION_SERVICE.v1}/ServerReflectionInfo`,
  `/${REFLECTION_SERVICE.v1alpha}/ServerReflectionInfo`,
] as const;
