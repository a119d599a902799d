/**
 * The ACL 1.0 request signature, shared by the signing client hook and the broker's validator: the extFields
 * sorted by key (Java's TreeMap: UTF-16 code unit order), their values concatenated (keys left out), the body bytes
 * appended, HmacSHA1 with the secret key (UTF-8), base64.
 *
 * The client signs every extField but `Signature`; the 4.9.8 broker checks every extField but `Signature` and
 * `_UNIQUE_KEY_QUERY` (MixAll.UNIQUE_MSG_QUERY_FLAG).
 *
 * A 5.x gRPC request signs one header instead (see signContent).
 *
 * @see org.apache.rocketmq.acl.common.AclUtils#combineRequestContent
 * @see org.apache.rocketmq.acl.common.AclSigner
 * @see org.apache.rocketmq.acl.common.SessionCredentials
 */
import { createHmac } from 'node:crypto';

export const ACCESS_KEY = 'AccessKey';
export const SECRET_KEY = 'SecretKey';
export const SIGNATURE = 'Signature';
export const SECURITY_TOKEN = 'SecurityToken';
/** MixAll.UNIQUE_MSG_QUERY_FLAG: the broker leaves it out of the signed content. */
export const UNIQUE_MSG_QUERY_FLAG = '_UNIQUE_KEY_QUERY';

const CLIENT_EXCLUDED: ReadonlySet<string> = new Set([SIGNATURE]);
/** What PlainAccessValidator.parse leaves out of the content it checks. */
export const SERVER_EXCLUDED: ReadonlySet<string> = new Set([SIGNATURE, UNIQUE_MSG_QUERY_FLAG]);

/** The signature of a request's extFields and body (AclUtils.combineRequestContent + calSignature). */
export function calculateSignature(
  extFields: Record<string, string>,
  body: Buffer | null,
  secretKey: string,
  excluded: ReadonlySet<string> = CLIENT_EXCLUDED,
): string {
  const keys = Object.keys(extFields).sort();
  // One string, one update: each update() crosses into C++ (about half the cost for a send's 13 fields).
  let content = '';
  // Java appends a null value as "null" (StringBuilder.append(Object)).
  for (const k of keys) if (!excluded.has(k)) content += extFields[k] ?? 'null';
  const hmac = createHmac('sha1', Buffer.from(secretKey, 'utf8'));
  hmac.update(content, 'utf8');
  if (body && body.length > 0) hmac.update(body);
  return hmac.digest('base64');
}

/**
 * The signature of raw content, HmacSHA1 with the secret key (UTF-8), base64 (AclUtils.calSignature(byte[], String)):
 * what a 5.x gRPC client signs is its x-mq-date-time header's bytes.
 */
export function signContent(content: Buffer, secretKey: string): string {
  return createHmac('sha1', Buffer.from(secretKey, 'utf8')).update(content).digest('base64');
}
