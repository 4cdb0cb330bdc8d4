export { main, COMMANDS, type Io } from './main.js';
export { commandRoutes, type CommandRoutes } from './command.js';
export { defaultPlugins, readCatalogue } from './plugins.js';
export { configReference } from './config-reference.js';
export { renderAccessDocs, withAccessDocs } from './access-docs.js';
export { openApiReference } from './openapi-reference.js';
