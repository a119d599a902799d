/**
 * ResumeCheckHalfMessageRequestHeader: Resumes transaction checks of a half message.
 *
 * Used by: RESUME_CHECK_HALF_MESSAGE (323) request.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   msgId  string   optional  message id
 *   topic  string   5.x opt.  topic (5.x)
 *
 * @see org.apache.rocketmq.common.protocol.header.ResumeCheckHalfMessageRequestHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.ResumeCheckHalfMessageRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const ResumeCheckHalfMessageRequestHeader = defineHeader('ResumeCheckHalfMessageRequestHeader', {
  msgId: { type: 'string' },
  topic: { type: 'string' },
} as const);
export type ResumeCheckHalfMessageRequestHeader = HeaderValues<typeof ResumeCheckHalfMessageRequestHeader.schema>;
