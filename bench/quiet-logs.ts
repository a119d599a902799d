/**
 * Imported first by a benchmark whose imports create loggers at load time (lib/consumer has module-level ones): the
 * client logs go to stderr at `error` unless ROCKETMQ_LOG_LEVEL says otherwise, so a run's table is not buried in
 * warnings (a busy broker's SYSTEM_BUSY answers, for one).
 */
process.env.ROCKETMQ_LOG_LEVEL ??= 'error';

export {};
