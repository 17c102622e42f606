export {};
export { startApiServer, testCertificates } from './server.js';
export type { ApiServer, ApiServerOptions, ApiServerLogger } from './server.js';
export { Faults } from './faults.js';
export type { FaultCounts, FailRule, DelayRule, RequestMatcher } from './faults.js';
export type { AuthOptions, AuthRule, AuthUser } from './auth.js';
export type { StatusBody, StatusCause, StatusDetails } from './status.js';
export type { KObj, Meta } from './store/object.js';
