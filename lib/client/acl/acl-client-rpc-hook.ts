/**
 * ACL request signing, as Java's AclClientRPCHook: put `AccessKey` (and `SecurityToken`) into extFields, sort all
 * extFields by key, concatenate their values (Signature excluded), append the body bytes, HmacSHA1 with the secret
 * key, base64 into `Signature`. A 4.9.8 broker refuses what fails with SYSTEM_ERROR and an AclException remark;
 * the name server does not check.
 *
 * @see org.apache.rocketmq.acl.common.AclClientRPCHook
 * @see org.apache.rocketmq.acl.common.AclUtils#combineRequestContent
 */
import { createHmac } from 'node:crypto';
import type { RemotingCommand } from '../../../protocol/remoting-command';
import type { RPCHook } from '../../transport/processor';

export const ACCESS_KEY = 'AccessKey';
export const SECRET_KEY = 'SecretKey';
export const SIGNATURE = 'Signature';
export const SECURITY_TOKEN = 'SecurityToken';

export interface SessionCredentials {
  accessKey: string;
  secretKey: string;
  securityToken?: string;
}

/** The signature of a request's extFields and body (Java's AclUtils.combineRequestContent + calSignature). */
export function calculateSignature(extFields: Record<string, string>, body: Buffer | null, secretKey: string): string {
  const keys = Object.keys(extFields).filter((k) => k !== SIGNATURE).sort();
  const hmac = createHmac('sha1', Buffer.from(secretKey, 'utf8'));
  for (const k of keys) hmac.update(extFields[k], 'utf8');
  if (body && body.length > 0) hmac.update(body);
  return hmac.digest('base64');
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
