// Event-stream leases (memoryLease, redisLease): issue 24, point 2.
export {};
