/**
 * ACL request signing, as Java's AclClientRPCHook: put `AccessKey` (and `SecurityToken`) into extFields, sort all
 * extFields by key, concatenate their values (Signature excluded), append the body bytes, HmacSHA1 with the secret
 * key, base64 into `Signature`. A 4.9.8 broker refuses what fails with SYSTEM_ERROR and an AclException remark;
 * the name server does not check.
 *
 * @see org.apache.rocketmq.acl.common.AclClientRPCHook
 * @see org.apache.rocketmq.acl.common.AclUtils#combineRequestContent
 */
import type { RemotingCommand } from '../../../protocol/remoting-command';
import type { RPCHook } from '../../transport/processor';
import { ACCESS_KEY, SECURITY_TOKEN, SIGNATURE, calculateSignature } from '../../../protocol/acl/acl-signature';

export { ACCESS_KEY, SECRET_KEY, SIGNATURE, SECURITY_TOKEN, calculateSignature } from '../../../protocol/acl/acl-signature';

export interface SessionCredentials {
  accessKey: string;
  secretKey: string;
  securityToken?: string;
}

export class AclClientRPCHook implements RPCHook {
  constructor(readonly sessionCredentials: SessionCredentials) {}

  doBeforeRequest(_remoteAddr: string, request: RemotingCommand): void {
    const ext = request.extFields ?? (request.extFields = {});
    ext[ACCESS_KEY] = this.sessionCredentials.accessKey;
    if (this.sessionCredentials.securityToken !== undefined) ext[SECURITY_TOKEN] = this.sessionCredentials.securityToken;
    ext[SIGNATURE] = calculateSignature(ext, request.body, this.sessionCredentials.secretKey);
  }

  doAfterResponse(): void {
    // nothing to check on responses
  }
}
