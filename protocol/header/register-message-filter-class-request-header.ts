/**
 * RegisterMessageFilterClassRequestHeader: A filter class for a consumer group.
 *
 * Used by: REGISTER_MESSAGE_FILTER_CLASS (302) request (4.9.8 only).
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   consumerGroup  string   required  consumer group
 *   topic          string   required  topic
 *   className      string   required  class name
 *   classCRC       int      required  class source CRC
 *
 * @see org.apache.rocketmq.common.protocol.header.filtersrv.RegisterMessageFilterClassRequestHeader (4.9.8)
 * (removed in 5.x)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const RegisterMessageFilterClassRequestHeader = defineHeader('RegisterMessageFilterClassRequestHeader', {
  consumerGroup: { type: 'string', required: true },
  topic: { type: 'string', required: true },
  className: { type: 'string', required: true },
  classCRC: { type: 'int', required: true },
} as const);
export type RegisterMessageFilterClassRequestHeader = HeaderValues<typeof RegisterMessageFilterClassRequestHeader.schema>;
