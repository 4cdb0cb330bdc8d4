export { main, type Io } from './main.js';
export { defaultPlugins, readCatalogue } from './plugins.js';
export { configReference } from './config-reference.js';
