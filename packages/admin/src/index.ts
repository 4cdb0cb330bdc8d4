import { definePlugin } from '@hub/runtime';

/** The administration API (work in progress, issue 5). */
export default definePlugin({
  id: 'admin',
  contract: 1,
  description: 'The administration API',
});
