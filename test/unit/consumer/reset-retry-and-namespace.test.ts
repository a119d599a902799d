import { expect } from 'chai';
import { resetRetryAndNamespace } from '../../../lib/consumer/consume-service';
import { withoutNamespace } from '../../../lib/client/namespace';
import type { MessageExt } from '../../../protocol/message/message';

/** ConsumeMessageConcurrentlyService.resetRetryAndNamespace of Java 4.9.8, with and without a namespace. */
describe('lib/consumer resetRetryAndNamespace', () => {
  const msg = (topic: string, retryTopic?: string): MessageExt =>
    ({ topic, properties: retryTopic ? { RETRY_TOPIC: retryTopic } : {} }) as unknown as MessageExt;

  it('without namespace: %RETRY%group back to RETRY_TOPIC, others unchanged', () => {
    const ms = [msg('%RETRY%G', 'T'), msg('T'), msg('%RETRY%OTHER', 'X')];
    resetRetryAndNamespace(ms, 'G', (s) => s);
    expect(ms.map((m) => m.topic)).to.deep.equal(['T', 'T', '%RETRY%OTHER']);
  });

  it('with namespace NS: %RETRY%NS%G back to the original topic, without the namespace, for the short or the wrapped group', () => {
    const strip = (s: string): string => withoutNamespace(s, 'NS');
    for (const group of ['G', 'NS%G']) {
      const ms = [msg('%RETRY%NS%G', 'NS%T'), msg('NS%T'), msg('%RETRY%NS%OTHER', 'NS%X')];
      resetRetryAndNamespace(ms, group, strip);
      expect(ms.map((m) => m.topic), group).to.deep.equal(['T', 'T', '%RETRY%OTHER']);
    }
  });
});
