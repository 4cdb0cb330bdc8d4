import type { Migration } from '../../contract/plugin.js';
import { core } from './001_core.js';

export const runtimeMigrations: Readonly<Record<string, Migration>> = { '001_core': core };
