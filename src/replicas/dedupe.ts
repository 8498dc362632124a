// Webhook dedupe stores (memoryDedupe, redisDedupe): issue 24, point 1.
export {};
