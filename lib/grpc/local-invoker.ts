/**
 * Runs a remoting request through the broker's own processor for its code, in process, and answers its response:
 * what Java's proxy in local mode does with a LocalRemotingCommand and a SimpleChannel (LocalMessageService). A
 * processor that holds the request (POP long polling) answers later through the context's writeResponse.
 *
 * @see org.apache.rocketmq.proxy.service.message.LocalMessageService
 */
import { RemotingCommand } from '../../protocol/remoting-command';
import { GrpcProxyError } from '../errors';
import type { RemotingContext } from '../transport/processor';
import type { Channel } from '../transport/connection';
import type { GrpcBrokerPort } from './grpc-broker-port';

export class LocalInvoker {
  constructor(private readonly broker: Pick<GrpcBrokerPort, 'processors'>) {}

  /** `isActive`: false once the caller no longer waits for the answer (its call cancelled); see RemotingContext.isActive. */
  invoke(request: RemotingCommand, channel: Channel, isActive?: () => boolean): Promise<RemotingCommand> {
    const processor = this.broker.processors.get(request.code);
    if (!processor) return Promise.reject(new GrpcProxyError('NOT_IMPLEMENTED', `request code ${request.code} is not served by this broker`));
    return new Promise<RemotingCommand>((resolve, reject) => {
      let answered = false;
      const ctx: RemotingContext = {
        channel,
        remoteAddress: channel.remoteAddress,
        ...(isActive ? { isActive } : {}),
        writeResponse(response: RemotingCommand): boolean {
          if (answered) return false;
          answered = true;
          resolve(response);
          return true;
        },
      };
      processor.processRequest(request, ctx).then((response) => {
        if (response) ctx.writeResponse(response);
      }, (err: unknown) => {
        if (answered) return;
        answered = true;
        reject(err);
      });
    });
  }

  /**
   * A oneway request (END_TRANSACTION): settles once the processor is done with it; its answer, if any, is dropped
   * (LocalMessageService.endTransactionOneway).
   */
  async invokeOneway(request: RemotingCommand, channel: Channel): Promise<void> {
    const processor = this.broker.processors.get(request.code);
    if (!processor) throw new GrpcProxyError('NOT_IMPLEMENTED', `request code ${request.code} is not served by this broker`);
    const ctx: RemotingContext = { channel, remoteAddress: channel.remoteAddress, writeResponse: () => true };
    await processor.processRequest(request, ctx);
  }
}
