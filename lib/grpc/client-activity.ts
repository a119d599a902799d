/**
 * Heartbeat, NotifyClientTermination and the Telemetry stream's settings exchange. A client's settings arrive on
 * Telemetry first; the endpoint registers it in the broker's producer manager (group = each topic, as Java 5.x) or
 * consumer manager (its group and subscriptions) through a virtual channel, keeps the settings, and answers them
 * merged with the server's (backoff policy, max body size, receive batch size, long-polling timeout, FIFO).
 * Heartbeats refresh the registration; termination removes it.
 *
 * @see org.apache.rocketmq.proxy.grpc.v2.client.ClientActivity
 */
import { ConsumeFromWhere, ConsumeType, MessageModel, type SubscriptionData } from '../../protocol/body/heartbeat-data';
import { GrpcProxyError } from '../errors';
import { newClientChannelInfo } from '../broker/client-manager/client-channel-info';
import { buildSubscriptionData } from '../broker/filter-api';
import type { ActivityContext } from './activity-context';
import type { GrpcClientChannel, TelemetryWriter } from './grpc-client-channel';
import { validateConsumerGroup, validateTopic } from './grpc-validator';
import type { HeartbeatRequest, NotifyClientTerminationRequest, PbStatus, PbSubscriptionEntry, TelemetryCommand } from './pb';
import type { ProxyContext } from './proxy-context';
import type { ReceiptHandleManager } from './receipt-handle-manager';
import { buildStatus } from './response-builder';

/** MQVersion.Version.V5_0_0's ordinal: the version a gRPC client is registered with. */
export const V5_0_0 = 413;

/** GrpcConverter.buildExpressionType. */
export function buildExpressionType(filterType: string | undefined): string {
  return filterType === 'SQL' ? 'SQL92' : 'TAG';
}

export function buildSubscriptionDataList(entries: readonly PbSubscriptionEntry[]): SubscriptionData[] {
  return entries.map((e) => {
    try {
      return buildSubscriptionData(e.topic?.name ?? '', e.expression?.expression ?? '*', buildExpressionType(e.expression?.type));
    } catch (err) {
      throw new GrpcProxyError('ILLEGAL_FILTER_EXPRESSION', 'expression format is not correct', { cause: err });
    }
  });
}

export class ClientActivity {
  constructor(private readonly a: ActivityContext, private readonly receiptHandles: ReceiptHandleManager) {}

  heartbeat(ctx: ProxyContext, req: HeartbeatRequest): { status: PbStatus } {
    const settings = this.a.settings.getClientSettings(ctx.clientId);
    if (!settings) return { status: buildStatus('UNRECOGNIZED_CLIENT_TYPE', 'cannot find client settings for this client') };
    switch (settings.clientType) {
      case 'PRODUCER':
        for (const topic of settings.publishing?.topics ?? []) this.#registerProducer(ctx, topic.name);
        break;
      case 'PUSH_CONSUMER':
      case 'SIMPLE_CONSUMER': {
        const group = validateConsumerGroup(req.group);
        this.#registerConsumer(ctx, group, settings.clientType, settings.subscription?.subscriptions ?? []);
        break;
      }
      default:
        return { status: buildStatus('UNRECOGNIZED_CLIENT_TYPE', settings.clientType ?? 'CLIENT_TYPE_UNSPECIFIED') };
    }
    return { status: buildStatus('OK', 'OK') };
  }

  notifyClientTermination(ctx: ProxyContext, req: NotifyClientTerminationRequest): { status: PbStatus } {
    const settings = this.a.settings.removeAndGetClientSettings(ctx.clientId);
    if (!settings) return { status: buildStatus('UNRECOGNIZED_CLIENT_TYPE', 'cannot find client settings for this client') };
    const b = this.a.broker;
    switch (settings.clientType) {
      case 'PRODUCER': {
        const channel = this.a.channels.removeChannel(ctx.clientId);
        if (channel) {
          const info = newClientChannelInfo(channel, ctx.clientId, ctx.language, V5_0_0);
          for (const topic of settings.publishing?.topics ?? []) b.producerManager.unregisterProducer(topic.name, info);
          channel.close();
        }
        break;
      }
      case 'PUSH_CONSUMER':
      case 'SIMPLE_CONSUMER': {
        const group = validateConsumerGroup(req.group);
        const channel = this.a.channels.removeChannel(ctx.clientId);
        if (channel) {
          b.consumerManager.unregisterConsumer(group, newClientChannelInfo(channel, ctx.clientId, ctx.language, V5_0_0), true);
          channel.close();
        }
        // The client left its group: what it still held (auto-renewed) is visible again soon.
        void this.receiptHandles.clearGroup(ctx.clientId, group);
        break;
      }
      default:
        return { status: buildStatus('UNRECOGNIZED_CLIENT_TYPE', settings.clientType ?? 'CLIENT_TYPE_UNSPECIFIED') };
    }
    return { status: buildStatus('OK', 'OK') };
  }

  /**
   * The client's Telemetry stream was cancelled from its side (its connection is gone, as when its process is
   * killed): a consumer leaves its group now, and the messages the endpoint renewed for it are visible again after
   * invisibleTimeMillisWhenClear, instead of when the broker expires the channel (channelExpiredTimeout, 2 min). A
   * client that is still alive opens a new stream and registers again with its settings.
   */
  onClientGone(ctx: ProxyContext): void {
    const settings = this.a.settings.getRawClientSettings(ctx.clientId);
    if (!settings || (settings.clientType !== 'PUSH_CONSUMER' && settings.clientType !== 'SIMPLE_CONSUMER')) return;
    const group = settings.subscription?.group?.name ?? '';
    const channel = this.a.channels.getChannel(ctx.clientId);
    if (!group || !channel) return;
    this.a.logger.info({ clientId: ctx.clientId, group }, 'telemetry cancelled by the client: it leaves its group');
    this.a.broker.consumerManager.unregisterConsumer(group, newClientChannelInfo(channel, ctx.clientId, ctx.language, V5_0_0), true);
    void this.receiptHandles.clearGroup(ctx.clientId, group);
  }

  /**
   * One TelemetryCommand from the client. Settings: registered, kept and answered (on `stream`); a thread stack
   * trace or a verify-message result answers the broker's call of its nonce (GrpcClientChannel.invoke).
   * A settings command with neither publishing nor subscription is a client error (INVALID_ARGUMENT on the stream).
   */
  onTelemetryCommand(ctx: ProxyContext, cmd: TelemetryCommand, stream: TelemetryWriter): void {
    if (cmd.command === 'threadStackTrace' && cmd.threadStackTrace) {
      this.a.channels.getChannel(ctx.clientId)?.onThreadStackTrace(cmd.status, cmd.threadStackTrace.nonce, cmd.threadStackTrace.threadStackTrace);
      return;
    }
    if (cmd.command === 'verifyMessageResult' && cmd.verifyMessageResult) {
      this.a.channels.getChannel(ctx.clientId)?.onVerifyMessageResult(cmd.status, cmd.verifyMessageResult.nonce);
      return;
    }
    if (cmd.command !== 'settings' || !cmd.settings) return;
    const settings = cmd.settings;
    let channel: GrpcClientChannel | null = null;
    if (settings.pubSub === 'publishing' && settings.publishing) {
      for (const topic of settings.publishing.topics) {
        channel = this.#registerProducer(ctx, validateTopic(topic));
        channel.setClientObserver(stream);
      }
    } else if (settings.pubSub === 'subscription' && settings.subscription) {
      const group = validateConsumerGroup(settings.subscription.group);
      channel = this.#registerConsumer(ctx, group, settings.clientType ?? '', settings.subscription.subscriptions);
      channel.setClientObserver(stream);
    } else {
      throw new GrpcProxyError('BAD_REQUEST', 'there is no publishing or subscription data in settings');
    }
    this.a.settings.updateClientSettings(ctx.clientId, settings);
    const answer: TelemetryCommand = { status: buildStatus('OK', 'OK'), settings: this.a.settings.getClientSettings(ctx.clientId), command: 'settings' };
    if (!channel?.writeTelemetryCommand(answer)) stream.write(answer);
  }

  #registerProducer(ctx: ProxyContext, topic: string): GrpcClientChannel {
    const channel = this.a.channels.createChannel(ctx);
    this.a.broker.producerManager.registerProducer(topic, newClientChannelInfo(channel, ctx.clientId, ctx.language, V5_0_0));
    return channel;
  }

  #registerConsumer(ctx: ProxyContext, group: string, clientType: string, entries: readonly PbSubscriptionEntry[]): GrpcClientChannel {
    const channel = this.a.channels.createChannel(ctx);
    const consumeType = clientType === 'SIMPLE_CONSUMER' ? ConsumeType.CONSUME_ACTIVELY : ConsumeType.CONSUME_PASSIVELY;
    if (clientType !== 'SIMPLE_CONSUMER' && clientType !== 'PUSH_CONSUMER') {
      throw new GrpcProxyError('UNRECOGNIZED_CLIENT_TYPE', `Client type is not consumer, type: ${clientType}`);
    }
    this.a.broker.consumerManager.registerConsumer(group, newClientChannelInfo(channel, ctx.clientId, ctx.language, V5_0_0),
      consumeType, MessageModel.CLUSTERING, ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET, buildSubscriptionDataList(entries), true);
    return channel;
  }
}
