/**
 * The aclConfig admin requests of a 4.9.8 broker (AdminBrokerProcessor's ACL cases): create/update an account,
 * delete one, replace the global white addresses (each rewrites the ACL file, bumping its dataVersion, and the
 * rules apply at once), the config versions, and (as 4.6-4.9.4 brokers answered code 54) the whole config.
 *
 * Answers: SUCCESS with no remark; a refusal by the manager → UPDATE_AND_CREATE_ACL_CONFIG_FAILED (209) /
 * DELETE_ACL_CONFIG_FAILED (210) / UPDATE_GLOBAL_WHITE_ADDRS_CONFIG_FAILED (211) with Java's remark, an error →
 * the same code with the error's message. With ACL disabled Java dereferences a missing validator; we answer
 * SYSTEM_ERROR "ACL is not enabled on this broker (aclEnable=false)".
 * Who may call them: 4.9.8's Permission.ADMIN_CODE does not list them, so any account with a valid signature may.
 *
 * @see org.apache.rocketmq.broker.processor.AdminBrokerProcessor#updateAndCreateAccessConfig (4.9.8)
 */
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { CreateAccessConfigRequestHeader } from '../../../protocol/header/create-access-config-request-header';
import { DeleteAccessConfigRequestHeader } from '../../../protocol/header/delete-access-config-request-header';
import { UpdateGlobalWhiteAddrsConfigRequestHeader } from '../../../protocol/header/update-global-white-addrs-config-request-header';
import { GetBrokerAclConfigResponseHeader } from '../../../protocol/header/get-broker-acl-config-response-header';
import { dataVersionToJson } from '../../../protocol/body/data-version';
import { RemotingCommand } from '../../../protocol/remoting-command';
import type { RemotingContext } from '../../transport/processor';
import type { PlainAccessConfig } from './plain-access-resource';
import type { PlainAccessValidator } from './plain-access-validator';

/** GET_BROKER_CLUSTER_ACL_CONFIG: 4.6.0-4.9.4 (removed from 4.9.8's RequestCode). */
export const GET_BROKER_CLUSTER_ACL_CONFIG = 54;

export const ACL_CONFIG_CODES: readonly number[] = [
  RequestCode.UPDATE_AND_CREATE_ACL_CONFIG,
  RequestCode.DELETE_ACL_CONFIG,
  RequestCode.GET_BROKER_CLUSTER_ACL_INFO,
  RequestCode.UPDATE_GLOBAL_WHITE_ADDRS_CONFIG,
  GET_BROKER_CLUSTER_ACL_CONFIG,
];

/** UtilAll.split: null for null, else the comma-separated parts. */
function split(s: string | undefined | null): string[] | null {
  if (s === undefined || s === null) return null;
  return s.split(',');
}

/** fastjson of a bean: keys in alphabetical order, nulls left out. */
function fastjsonBean(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o).sort()) if (o[k] !== null && o[k] !== undefined) out[k] = o[k];
  return out;
}

export interface AclConfigProcessorHost {
  /** Null when aclEnable=false. */
  readonly accessValidator: PlainAccessValidator | null;
  readonly brokerAddr: string;
  readonly brokerConfig: { brokerName: string; brokerClusterName: string };
}

export class AclConfigProcessor {
  readonly requestCodes = ACL_CONFIG_CODES;

  constructor(private readonly host: AclConfigProcessorHost) {}

  async processRequest(request: RemotingCommand, _ctx: RemotingContext): Promise<RemotingCommand | null> {
    const validator = this.host.accessValidator;
    if (!validator) {
      return RemotingCommand.createResponse(request, ResponseCode.SYSTEM_ERROR, 'ACL is not enabled on this broker (aclEnable=false)');
    }
    const engine = validator.aclPlugEngine;
    switch (request.code) {
      case RequestCode.UPDATE_AND_CREATE_ACL_CONFIG: {
        const h = CreateAccessConfigRequestHeader.decode(request.extFields);
        const config: PlainAccessConfig = {
          accessKey: h.accessKey,
          secretKey: h.secretKey ?? null,
          whiteRemoteAddress: h.whiteRemoteAddress ?? null,
          admin: h.admin ?? false,
          defaultTopicPerm: h.defaultTopicPerm ?? null,
          defaultGroupPerm: h.defaultGroupPerm ?? null,
          topicPerms: split(h.topicPerms),
          groupPerms: split(h.groupPerms),
        };
        return this.#answer(request, ResponseCode.UPDATE_AND_CREATE_ACL_CONFIG_FAILED,
          `The accesskey[${h.accessKey}] corresponding to accessConfig has been updated failed.`, () => engine.updateAccessConfig(config));
      }
      case RequestCode.DELETE_ACL_CONFIG: {
        const h = DeleteAccessConfigRequestHeader.decode(request.extFields);
        return this.#answer(request, ResponseCode.DELETE_ACL_CONFIG_FAILED,
          `The accesskey[${h.accessKey}] corresponding to accessConfig has been deleted failed.`, () => engine.deleteAccessConfig(h.accessKey));
      }
      case RequestCode.UPDATE_GLOBAL_WHITE_ADDRS_CONFIG: {
        const h = UpdateGlobalWhiteAddrsConfigRequestHeader.decode(request.extFields);
        return this.#answer(request, ResponseCode.UPDATE_GLOBAL_WHITE_ADDRS_CONFIG_FAILED,
          `The globalWhiteAddresses[${h.globalWhiteAddrs}] has been updated failed.`,
          () => engine.updateGlobalWhiteAddrsConfig(split(h.globalWhiteAddrs), h.aclFileFullPath));
      }
      case RequestCode.GET_BROKER_CLUSTER_ACL_INFO: {
        const all: Record<string, unknown> = {};
        for (const [file, dv] of engine.getDataVersionMap()) all[file] = dataVersionToJson(dv);
        const header = GetBrokerAclConfigResponseHeader.encode({
          version: engine.getAclConfigDataVersion(),
          allAclFileVersion: JSON.stringify(all),
          brokerName: this.host.brokerConfig.brokerName,
          brokerAddr: this.host.brokerAddr,
          clusterName: this.host.brokerConfig.brokerClusterName,
        });
        return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null, header);
      }
      case GET_BROKER_CLUSTER_ACL_CONFIG: {
        const c = engine.getAllAclConfig();
        const body = {
          globalWhiteAddrs: c.globalWhiteAddrs,
          plainAccessConfigs: c.plainAccessConfigs.map((p) => fastjsonBean({ ...p })),
        };
        return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null, null, Buffer.from(JSON.stringify(body), 'utf8'));
      }
      default:
        return RemotingCommand.createResponse(request, ResponseCode.REQUEST_CODE_NOT_SUPPORTED, ` request type ${request.code} not supported`);
    }
  }

  async #answer(request: RemotingCommand, failCode: number, failRemark: string, op: () => Promise<boolean>): Promise<RemotingCommand> {
    try {
      if (await op()) return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null);
      return RemotingCommand.createResponse(request, failCode, failRemark);
    } catch (err) {
      return RemotingCommand.createResponse(request, failCode, (err as Error).message);
    }
  }
}
