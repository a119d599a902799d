/**
 * MixAll and TopicValidator names for the client layers; they live in protocol/ so the broker shares them.
 */
export * from '../../protocol/mix-all';
