/**
 * jose, imported with the first token hub verifies or exchanges, not when it starts: a hub without OpenID
 * Connect or workload identity never needs it (issue 32, idle RSS).
 */
let loading: Promise<typeof import('jose')> | undefined;

export const jose = (): Promise<typeof import('jose')> => (loading ??= import('jose'));
