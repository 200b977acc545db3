/**
 * The configuration of one process (src/config/): the AppConfig types, `loadConfig` reading the
 * environment through the declarations of src/config/vars.ts, and the reference rendered from them
 * (docs/configuration.md, `--help-config`).
 */
export type * from './config/types.js';
export { ConfigError } from './config/declare.js';
export { loadConfig, s3ClientSettings } from './config/load.js';
export { renderConfigMarkdown, renderConfigText } from './config/docs.js';
