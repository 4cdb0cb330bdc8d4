/** Who the audit's blocks are recorded as (`blocked_by`), so they can be told from an administrator's. */
export const AUDIT_ACTOR = 'system:upstream-audit';
