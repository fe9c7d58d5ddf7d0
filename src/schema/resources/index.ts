// Resources: rooms and equipment, and the holds bookings keep on them.
// The public face of this subject: transports import it from here, never a file inside.
// Its GraphQL type (resource.ts) is registered by src/schema/index.ts.
export * from './manage-resources.js';
export {
  loadResourceSchedule,
  needsResources,
  type ResourceNeeds,
  resourceRefusals,
  type ResourceSchedule,
} from './resource-schedule.js';
export { holdResources, releaseHolds } from './resource-holds.js';
export { ResourceKindEnum } from './resource.js';
