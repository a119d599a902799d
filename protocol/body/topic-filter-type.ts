/**
 * How a topic's messages carry tags; travels by name.
 *
 * @see org.apache.rocketmq.common.TopicFilterType
 */
export const TopicFilterType = {
  SINGLE_TAG: 'SINGLE_TAG',
  MULTI_TAG: 'MULTI_TAG',
} as const;
export type TopicFilterType = (typeof TopicFilterType)[keyof typeof TopicFilterType];
