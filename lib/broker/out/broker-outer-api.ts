/**
 * The broker's calls to name servers: REGISTER_BROKER and QUERY_DATA_VERSION to one of them (broker-registration.ts
 * decides when and to which), UNREGISTER_BROKER to each on shutdown.
 *
 * @see org.apache.rocketmq.broker.out.BrokerOuterAPI
 */
import type { Logger } from '../../logger';
import { RemotingClient } from '../../transport/remoting-client';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { RegisterBrokerRequestHeader } from '../../../protocol/header/register-broker-request-header';
import { RegisterBrokerResponseHeader } from '../../../protocol/header/register-broker-response-header';
import { UnRegisterBrokerRequestHeader } from '../../../protocol/header/unregister-broker-request-header';
import { encodeRegisterBrokerBody } from '../../../protocol/body/register-broker-body';
import type { TopicConfigSerializeWrapper } from '../../../protocol/body/topic-config-serialize-wrapper';
import { bodyCrc32 } from '../../../protocol/message/compression';
import { MQBrokerError } from '../../errors';
import { QueryDataVersionRequestHeader } from '../../../protocol/header/query-data-version-request-header';
import { QueryDataVersionResponseHeader } from '../../../protocol/header/query-data-version-response-header';
import { type DataVersion, dataVersionEquals, decodeDataVersion, encodeDataVersion } from '../../../protocol/body/data-version';

export interface RegisterBrokerResult {
  namesrvAddr: string;
  haServerAddr?: string;
  masterAddr?: string;
}

export interface RegisterBrokerArgs {
  clusterName: string;
  brokerAddr: string;
  brokerName: string;
  brokerId: number;
  haServerAddr: string;
  topicConfigWrapper: TopicConfigSerializeWrapper;
  filterServerList: string[];
  timeoutMills: number;
  compressed: boolean;
}

/** Splits Java's namesrvAddr list ("a:9876;b:9876"). */
export function parseNamesrvAddr(addr: string | undefined | null): string[] {
  return (addr ?? '').split(';').map((s) => s.trim()).filter((s) => s.length > 0);
}

export class BrokerOuterAPI {
  readonly remotingClient: RemotingClient;
  #namesrvAddrList: string[] = [];
  readonly #bodies = new WeakMap<TopicConfigSerializeWrapper, { body: Buffer; bodyCrc: number; compressed: boolean }>();

  /** `useTLS`: register with the name servers over TLS (Java: tls.enable, or tls.server.mode=enforcing). */
  constructor(private readonly logger: Logger, useTLS = false) {
    this.remotingClient = new RemotingClient({ logger, useTLS });
  }

  updateNameServerAddressList(addrs: string): void {
    this.#namesrvAddrList = parseNamesrvAddr(addrs);
  }

  get nameServerAddressList(): readonly string[] {
    return this.#namesrvAddrList;
  }

  /**
   * REGISTER_BROKER to one name server; throws on a failure or a non-success answer. The body of a wrapper is
   * encoded once, however many name servers it goes to.
   */
  async registerBroker(namesrvAddr: string, args: RegisterBrokerArgs): Promise<RegisterBrokerResult> {
    const { body, bodyCrc } = this.#encodeBody(args);
    const extFields = RegisterBrokerRequestHeader.encode({
      brokerAddr: args.brokerAddr,
      brokerId: args.brokerId,
      brokerName: args.brokerName,
      clusterName: args.clusterName,
      haServerAddr: args.haServerAddr,
      compressed: args.compressed,
      bodyCrc32: bodyCrc,
    });
    const request = RemotingCommand.createRequest(RequestCode.REGISTER_BROKER, extFields, body);
    const response = await this.remotingClient.invoke(namesrvAddr, request, args.timeoutMills);
    if (response.code !== ResponseCode.SUCCESS) {
      throw new MQBrokerError(response.code, response.remark ?? '', namesrvAddr);
    }
    const h = RegisterBrokerResponseHeader.decode(response.extFields);
    this.logger.debug({ namesrvAddr, brokerId: args.brokerId }, 'register broker to name server OK');
    return { namesrvAddr, haServerAddr: h.haServerAddr, masterAddr: h.masterAddr };
  }

  #encodeBody(args: RegisterBrokerArgs): { body: Buffer; bodyCrc: number } {
    const cached = this.#bodies.get(args.topicConfigWrapper);
    if (cached && cached.compressed === args.compressed) return cached;
    const body = encodeRegisterBrokerBody(
      { topicConfigSerializeWrapper: args.topicConfigWrapper, filterServerList: args.filterServerList },
      args.compressed,
    );
    const entry = { body, bodyCrc: bodyCrc32(body) | 0, compressed: args.compressed };
    this.#bodies.set(args.topicConfigWrapper, entry);
    return entry;
  }

  /**
   * QUERY_DATA_VERSION: whether the name server holds another data version for this broker than `dataVersion`
   * (Java BrokerOuterAPI.needRegister, one name server).
   */
  async queryDataVersionChanged(namesrvAddr: string, q: {
    clusterName: string; brokerAddr: string; brokerName: string; brokerId: number; dataVersion: DataVersion;
  }, timeoutMills = 3000): Promise<boolean> {
    const request = RemotingCommand.createRequest(
      RequestCode.QUERY_DATA_VERSION,
      QueryDataVersionRequestHeader.encode({
        brokerAddr: q.brokerAddr, brokerId: q.brokerId, brokerName: q.brokerName, clusterName: q.clusterName,
      }),
      encodeDataVersion(q.dataVersion),
    );
    const response = await this.remotingClient.invoke(namesrvAddr, request, timeoutMills);
    if (response.code !== ResponseCode.SUCCESS) throw new MQBrokerError(response.code, response.remark ?? '', namesrvAddr);
    const h = QueryDataVersionResponseHeader.decode(response.extFields);
    if (h.changed) return true;
    const nameServerVersion = response.body && response.body.length > 0 ? decodeDataVersion(response.body) : null;
    return nameServerVersion === null || !dataVersionEquals(nameServerVersion, q.dataVersion);
  }

  /** UNREGISTER_BROKER to every name server; failures are logged. */
  async unregisterBrokerAll(clusterName: string, brokerAddr: string, brokerName: string, brokerId: number, timeoutMills = 3000): Promise<void> {
    await Promise.all(
      this.#namesrvAddrList.map(async (namesrvAddr) => {
        try {
          const request = RemotingCommand.createRequest(
            RequestCode.UNREGISTER_BROKER,
            UnRegisterBrokerRequestHeader.encode({ brokerName, brokerAddr, clusterName, brokerId }),
          );
          const response = await this.remotingClient.invoke(namesrvAddr, request, timeoutMills);
          if (response.code !== ResponseCode.SUCCESS) throw new MQBrokerError(response.code, response.remark ?? '', namesrvAddr);
          this.logger.info({ namesrvAddr }, 'unregister broker from name server OK');
        } catch (err) {
          this.logger.warn({ err, namesrvAddr }, 'unregister broker failed');
        }
      }),
    );
  }

  shutdown(): Promise<void> {
    return this.remotingClient.shutdown();
  }
}
