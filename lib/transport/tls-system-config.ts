/**
 * TLS settings with Java's names and defaults (TlsSystemConfig) and how they become node:tls options (TlsHelper).
 *
 * Keys (Java system properties; here also broker.conf / namesrv properties keys):
 *   tls.server.mode              disabled | permissive (default) | enforcing
 *   tls.enable                   clients connect with TLS (default false)
 *   tls.config.file              properties file read over the keys below (default /etc/rocketmq/tls.properties)
 *   tls.test.mode.enable         default true: the server uses a self-signed certificate, the client trusts any
 *   tls.server.need.client.auth  none (default) | optional | require
 *   tls.server.keyPath, tls.server.keyPassword, tls.server.certPath
 *   tls.server.authClient        verify client certificates against tls.server.trustCertPath (default false)
 *   tls.client.keyPath, tls.client.keyPassword, tls.client.certPath
 *   tls.client.authServer        verify the server against tls.client.trustCertPath (default false)
 * As in Java, the config file does not set tls.server.mode or tls.enable.
 *
 * @see org.apache.rocketmq.remoting.netty.TlsSystemConfig
 * @see org.apache.rocketmq.remoting.netty.TlsHelper
 */
import { promises as fsp } from 'node:fs';
import type tls from 'node:tls';
import { ConfigError } from '../errors';
import { parseProperties } from '../util/properties-file';
import { generateSelfSignedCertificate } from './self-signed-certificate';

export const TlsMode = { DISABLED: 'disabled', PERMISSIVE: 'permissive', ENFORCING: 'enforcing' } as const;
export type TlsMode = (typeof TlsMode)[keyof typeof TlsMode];

export interface TlsSystemConfig {
  tlsMode: TlsMode;
  tlsEnable: boolean;
  tlsConfigFile: string;
  tlsTestModeEnable: boolean;
  tlsServerNeedClientAuth: string;
  tlsServerKeyPath: string | null;
  tlsServerKeyPassword: string | null;
  tlsServerCertPath: string | null;
  tlsServerAuthClient: boolean;
  tlsServerTrustCertPath: string | null;
  tlsClientKeyPath: string | null;
  tlsClientKeyPassword: string | null;
  tlsClientCertPath: string | null;
  tlsClientAuthServer: boolean;
  tlsClientTrustCertPath: string | null;
}

export const DEFAULT_TLS_SYSTEM_CONFIG: Readonly<TlsSystemConfig> = Object.freeze({
  tlsMode: TlsMode.PERMISSIVE,
  tlsEnable: false,
  tlsConfigFile: '/etc/rocketmq/tls.properties',
  tlsTestModeEnable: true,
  tlsServerNeedClientAuth: 'none',
  tlsServerKeyPath: null,
  tlsServerKeyPassword: null,
  tlsServerCertPath: null,
  tlsServerAuthClient: false,
  tlsServerTrustCertPath: null,
  tlsClientKeyPath: null,
  tlsClientKeyPassword: null,
  tlsClientCertPath: null,
  tlsClientAuthServer: false,
  tlsClientTrustCertPath: null,
});

/** Java key → field. */
export const TLS_KEYS: Readonly<Record<string, keyof TlsSystemConfig>> = Object.freeze({
  'tls.server.mode': 'tlsMode',
  'tls.enable': 'tlsEnable',
  'tls.config.file': 'tlsConfigFile',
  'tls.test.mode.enable': 'tlsTestModeEnable',
  'tls.server.need.client.auth': 'tlsServerNeedClientAuth',
  'tls.server.keyPath': 'tlsServerKeyPath',
  'tls.server.keyPassword': 'tlsServerKeyPassword',
  'tls.server.certPath': 'tlsServerCertPath',
  'tls.server.authClient': 'tlsServerAuthClient',
  'tls.server.trustCertPath': 'tlsServerTrustCertPath',
  'tls.client.keyPath': 'tlsClientKeyPath',
  'tls.client.keyPassword': 'tlsClientKeyPassword',
  'tls.client.certPath': 'tlsClientCertPath',
  'tls.client.authServer': 'tlsClientAuthServer',
  'tls.client.trustCertPath': 'tlsClientTrustCertPath',
});

/** TlsMode.parse: an unknown mode is PERMISSIVE in Java; we refuse it so a typo cannot weaken "enforcing". */
export function parseTlsMode(s: string): TlsMode {
  const m = s.trim().toLowerCase();
  if (m === TlsMode.DISABLED || m === TlsMode.PERMISSIVE || m === TlsMode.ENFORCING) return m;
  throw new ConfigError(`tls.server.mode must be disabled, permissive or enforcing, got "${s}"`);
}

/** Sets the fields of the `tls.*` keys in `props` on `config`; returns the keys it used. */
export function applyTlsProperties(config: TlsSystemConfig, props: ReadonlyMap<string, string>, fileMode = false): string[] {
  const used: string[] = [];
  const target = config as unknown as Record<string, unknown>;
  for (const [key, value] of props) {
    const field = TLS_KEYS[key];
    if (!field) continue;
    used.push(key);
    if (fileMode && (field === 'tlsMode' || field === 'tlsEnable' || field === 'tlsConfigFile')) continue;
    if (field === 'tlsMode') target[field] = parseTlsMode(value);
    else if (typeof DEFAULT_TLS_SYSTEM_CONFIG[field] === 'boolean') target[field] = value.trim().toLowerCase() === 'true';
    else target[field] = value;
  }
  return used;
}

/** Only the settings the `tls.*` keys of `props` give (the rest stays at the defaults where it is used). */
export function partialTlsConfigFromProperties(props: ReadonlyMap<string, string>): Partial<TlsSystemConfig> {
  const out: Partial<TlsSystemConfig> = {};
  applyTlsProperties(out as TlsSystemConfig, props);
  return out;
}

/** The config with the `tls.*` keys of `props` applied over the defaults (or `base`). */
export function tlsConfigFromProperties(props: ReadonlyMap<string, string>, base: Partial<TlsSystemConfig> = {}): TlsSystemConfig {
  const config = { ...DEFAULT_TLS_SYSTEM_CONFIG, ...base };
  applyTlsProperties(config, props);
  return config;
}

/** TlsHelper.extractTlsConfigFromFile: the file's keys over `config`, when the file is there. */
export async function withTlsConfigFile(config: TlsSystemConfig): Promise<TlsSystemConfig> {
  const text = await fsp.readFile(config.tlsConfigFile, 'utf8').catch(() => null);
  if (text === null) return config;
  const out = { ...config };
  applyTlsProperties(out, parseProperties(text), true);
  return out;
}

async function readOpt(file: string | null): Promise<Buffer | undefined> {
  if (!file) return undefined;
  try {
    return await fsp.readFile(file);
  } catch (err) {
    throw new ConfigError(`cannot read TLS file ${file}: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * Server options for node:tls (TlsHelper.buildSslContext(false)): test mode → a self-signed certificate and
 * optional client certificates, unverified; else the configured key and certificate, `need.client.auth`
 * none / optional / require, client certificates verified against trustCertPath when authClient.
 */
export async function buildServerTlsOptions(given: TlsSystemConfig): Promise<tls.TlsOptions> {
  const config = await withTlsConfigFile(given);
  if (config.tlsTestModeEnable) {
    const { cert, key } = generateSelfSignedCertificate();
    return { cert, key, requestCert: true, rejectUnauthorized: false };
  }
  const cert = await readOpt(config.tlsServerCertPath);
  const key = await readOpt(config.tlsServerKeyPath);
  if (!cert || !key) throw new ConfigError('tls.server.certPath and tls.server.keyPath are required when tls.test.mode.enable=false');
  const auth = config.tlsServerNeedClientAuth.trim().toLowerCase();
  const ca = config.tlsServerAuthClient ? await readOpt(config.tlsServerTrustCertPath) : undefined;
  return {
    cert,
    key,
    passphrase: config.tlsServerKeyPassword ?? undefined,
    requestCert: auth === 'optional' || auth === 'require',
    // Without authClient Java trusts any client certificate (InsecureTrustManagerFactory); `require` still needs one.
    rejectUnauthorized: auth === 'require' && config.tlsServerAuthClient,
    ...(ca ? { ca } : {}),
  };
}

/** Client options for node:tls (TlsHelper.buildSslContext(true)). */
export async function buildClientTlsOptions(given: TlsSystemConfig): Promise<tls.ConnectionOptions> {
  const config = await withTlsConfigFile(given);
  if (config.tlsTestModeEnable) return { rejectUnauthorized: false };
  const ca = config.tlsClientAuthServer ? await readOpt(config.tlsClientTrustCertPath) : undefined;
  const cert = await readOpt(config.tlsClientCertPath);
  const key = await readOpt(config.tlsClientKeyPath);
  return {
    rejectUnauthorized: config.tlsClientAuthServer,
    // Java's client checks the chain only, not the host name.
    ...(config.tlsClientAuthServer ? { checkServerIdentity: () => undefined } : {}),
    ...(ca ? { ca } : {}),
    ...(cert ? { cert } : {}),
    ...(key ? { key } : {}),
    ...(config.tlsClientKeyPassword ? { passphrase: config.tlsClientKeyPassword } : {}),
  };
}
