/**
 * CONSUME_MESSAGE_DIRECTLY (309) response body.
 *
 * @see org.apache.rocketmq.common.protocol.body.ConsumeMessageDirectlyResult
 * @see org.apache.rocketmq.common.protocol.body.CMResult
 */
import { bool, long, parseBody, str } from './body-util';
import { encodeFastjson } from './fastjson';

export const CMResult = {
  CR_SUCCESS: 'CR_SUCCESS',
  CR_LATER: 'CR_LATER',
  CR_ROLLBACK: 'CR_ROLLBACK',
  CR_COMMIT: 'CR_COMMIT',
  CR_THROW_EXCEPTION: 'CR_THROW_EXCEPTION',
  CR_RETURN_NULL: 'CR_RETURN_NULL',
} as const;
export type CMResult = (typeof CMResult)[keyof typeof CMResult];

export interface ConsumeMessageDirectlyResult {
  order: boolean;
  autoCommit: boolean;
  consumeResult?: CMResult;
  remark?: string;
  spentTimeMills: number;
}

export function decodeConsumeMessageDirectlyResult(buf: Buffer): ConsumeMessageDirectlyResult {
  const o = parseBody(buf, 'ConsumeMessageDirectlyResult');
  const r: ConsumeMessageDirectlyResult = {
    order: bool(o, 'order'),
    autoCommit: bool(o, 'autoCommit', true),
    spentTimeMills: long(o, 'spentTimeMills'),
  };
  const cr = str(o, 'consumeResult');
  if (cr !== undefined) r.consumeResult = cr as CMResult;
  const remark = str(o, 'remark');
  if (remark !== undefined) r.remark = remark;
  return r;
}

export function encodeConsumeMessageDirectlyResult(r: ConsumeMessageDirectlyResult): Buffer {
  return encodeFastjson({
    autoCommit: r.autoCommit,
    consumeResult: r.consumeResult,
    order: r.order,
    remark: r.remark,
    spentTimeMills: r.spentTimeMills,
  });
}
