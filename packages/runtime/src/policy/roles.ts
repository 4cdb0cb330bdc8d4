// The access vocabulary lives in @hub/contract (access.ts); the runtime's names for it stay.
export { PERMISSIONS as ALL_PERMISSIONS, ROLE_PERMISSIONS } from '@hub/contract';
