/**
 * Subscription expression types (SubscriptionData.expressionType).
 *
 * @see org.apache.rocketmq.common.filter.ExpressionType
 */
export const ExpressionType = {
  SQL92: 'SQL92',
  TAG: 'TAG',
} as const;
export type ExpressionType = (typeof ExpressionType)[keyof typeof ExpressionType];

export function isTagType(type: string | undefined | null): boolean {
  return type === undefined || type === null || type === '' || type === ExpressionType.TAG;
}
