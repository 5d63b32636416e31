import { sceneCatalog } from '@foxbell/sdk/contract';

/**
 * The scene catalog with each version's parameters as JSON Schema. It is fixed for the life of
 * the process, so its schemas are generated once, here, for the catalog route and for typing
 * `param.<name>` values alike.
 */
export const CATALOG = sceneCatalog();
