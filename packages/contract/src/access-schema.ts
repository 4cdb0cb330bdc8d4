import Type, { type TSchemaOptions } from 'typebox';
import { PERMISSIONS } from './access.js';

/** The TypeBox schema of one permission, for config and admin API schemas (`options`: a description, ...). */
export const permissionSchema = (options?: TSchemaOptions) => Type.Enum(PERMISSIONS, options);
