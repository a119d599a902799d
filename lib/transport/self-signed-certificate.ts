/**
 * A throw-away self-signed certificate, as Netty's SelfSignedCertificate gives a Java server in
 * `tls.test.mode.enable=true`: an EC P-256 key and an X.509 certificate (CN=localhost, ecdsa-with-SHA256, valid one
 * year), built with node:crypto and a few lines of DER. Only for test mode: a client that checks certificates
 * will not trust it.
 *
 * @see io.netty.handler.ssl.util.SelfSignedCertificate
 */
import { createPrivateKey, generateKeyPairSync, randomBytes, sign } from 'node:crypto';

function derLength(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), derLength(body.length), body]);
}

const seq = (...c: Buffer[]) => tlv(0x30, ...c);

function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const out = [parts[0] * 40 + parts[1]];
  for (const p of parts.slice(2)) {
    const stack = [p & 0x7f];
    for (let v = Math.floor(p / 128); v > 0; v = Math.floor(v / 128)) stack.unshift(0x80 | (v & 0x7f));
    out.push(...stack);
  }
  return tlv(0x06, Buffer.from(out));
}

function utcTime(d: Date): Buffer {
  const p = (n: number) => String(n).padStart(2, '0');
  const s = `${p(d.getUTCFullYear() % 100)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`;
  return tlv(0x17, Buffer.from(s, 'ascii'));
}

function pem(label: string, der: Buffer): string {
  const b64 = der.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '');
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}

export interface SelfSignedCertificate {
  /** PEM certificate. */
  cert: string;
  /** PEM PKCS#8 private key. */
  key: string;
}

/** Generates a key pair and a self-signed certificate for `commonName`. */
export function generateSelfSignedCertificate(commonName = 'localhost', now = new Date()): SelfSignedCertificate {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const sigAlg = seq(oid('1.2.840.10045.4.3.2'));
  const name = seq(tlv(0x31, seq(oid('2.5.4.3'), tlv(0x0c, Buffer.from(commonName, 'utf8')))));
  // A positive INTEGER in minimal DER: the first byte neither 0x00 (padding) nor >= 0x80 (negative).
  const serial = randomBytes(8);
  serial[0] = 0x01 + (serial[0] % 0x7f);
  const notAfter = new Date(now.getTime() + 365 * 24 * 3600 * 1000);
  const tbs = seq(
    tlv(0xa0, tlv(0x02, Buffer.from([2]))),
    tlv(0x02, serial),
    sigAlg,
    name,
    seq(utcTime(new Date(now.getTime() - 3600 * 1000)), utcTime(notAfter)),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
  );
  const signature = sign('sha256', tbs, privateKey);
  const cert = seq(tbs, sigAlg, tlv(0x03, Buffer.from([0]), signature));
  const keyPem = createPrivateKey(privateKey.export({ type: 'pkcs8', format: 'pem' })).export({ type: 'pkcs8', format: 'pem' }).toString();
  return { cert: pem('CERTIFICATE', cert), key: keyPem };
}
