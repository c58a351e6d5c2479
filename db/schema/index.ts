export * from "./merchants";
export * from "./staff-users";
export * from "./api-keys";
export * from "./payments";
export * from "./idempotency-keys";
export * from "./events";
export * from "./provider-callbacks";
export * from "./webhooks";
