import { definePlugin } from '@hub/runtime';

/** Delivers notifications to [[notifications.webhooks]], signed, with retries. */
export default definePlugin({
  id: 'webhooks',
  contract: 1,
  description: "Delivers notifications to [[notifications.webhooks]], signed, with retries",
});
