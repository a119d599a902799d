/**
 * Certificates for the TLS tests, made by openssl in the test's temp folder (not a test file): a CA, a server and
 * a client certificate signed by it, and a second, unrelated CA. The server certificate names localhost and
 * 127.0.0.1 (subjectAltName), so clients that check the host name (gRPC clients) accept it for 127.0.0.1.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface TestCerts {
  ca: string;
  otherCa: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

export function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Writes the certificates and keys (PEM; keys PKCS#8 unencrypted, as Java's TlsHelper reads them) into `dir`. */
export function makeCerts(dir: string): TestCerts {
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  const f = (n: string) => path.join(dir, n);
  for (const ca of ['ca', 'other-ca']) {
    run('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${ca}.key`, '-out', `${ca}.pem`, '-days', '2', '-subj', `/CN=${ca}`);
  }
  fs.writeFileSync(f('server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  for (const who of ['server', 'client']) {
    run('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${who}.rsa.key`, '-out', `${who}.csr`, '-subj', `/CN=${who}`);
    run('x509', '-req', '-in', `${who}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${who}.pem`, '-days', '2',
      ...(who === 'server' ? ['-extfile', 'server.ext'] : []));
    run('pkcs8', '-topk8', '-nocrypt', '-in', `${who}.rsa.key`, '-out', `${who}.key`);
  }
  return { ca: f('ca.pem'), otherCa: f('other-ca.pem'), serverCert: f('server.pem'), serverKey: f('server.key'), clientCert: f('client.pem'), clientKey: f('client.key') };
}
