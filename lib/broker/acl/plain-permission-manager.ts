/**
 * The accounts and white lists of plain_acl.yml, and the check of one request against them, as Java's
 * PlainPermissionManager (4.9.8):
 *
 * - Files: `<home>/<rocketmq.acl.plain.file>` (default `conf/plain_acl.yml`, created empty when missing) and every
 *   `*.yml` / `*.yaml` under `<home>/conf/acl/` (not `tools.yml`). An access key defined in two files is taken from
 *   the first. `globalWhiteRemoteAddresses` of all files add up.
 * - Reload: the files' modification times (and their number) are checked every 5 s (AclFileWatchService's
 *   WATCH_INTERVAL); a change reloads all. A file that does not parse (YAML error, with its line, or a bad
 *   account) is reported and the rules in force stay as they were.
 * - validate(): a global white address passes; else no access key → "No accessKey is configured"; unknown key →
 *   "No acl config for <ak>"; the account's white address passes; else the HmacSHA1 signature must match (over the
 *   extFields and body, or a gRPC request's signed content); a PUB of
 *   RMQ_SYS_TRACE_TOPIC passes; else checkPerm: admin codes need an admin account, each resource its permission
 *   (explicit, or the account's default topic / group permission).
 * - The aclConfig admin operations rewrite the YAML file (bumping its dataVersion) and reload.
 *
 * @see org.apache.rocketmq.acl.plain.PlainPermissionManager
 * @see org.apache.rocketmq.srvutil.AclFileWatchService
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type * as JsYaml from 'js-yaml';
import { SERVER_EXCLUDED, calculateSignature, signContent } from '../../../protocol/acl/acl-signature';
import { type DataVersion, dataVersionToJson, newDataVersion } from '../../../protocol/body/data-version';
import { javaHashOrderKeys } from '../../../protocol/message/java-hash';
import { AclException } from '../../errors';
import { type Logger, componentLogger } from '../../logger';
import { ServiceLoop } from '../../util/service-loop';
import { checkPermission, checkResourcePerms, needAdminPerm, parsePermFromString, parseResourcePerms, Permission } from './permission';
import { type OwnedAccess, type PlainAccessConfig, type PlainAccessResource, getRetryTopic, isRetryTopic, printStr } from './plain-access-resource';
import { type RemoteAddressStrategy, getRemoteAddressStrategy } from './remote-address-strategy';

/** The npm package that reads and writes the ACL files: a server-side piece, not installed with the SDK. */
export const ACL_YAML_PACKAGE = 'js-yaml';
let aclYamlPackage = ACL_YAML_PACKAGE;
let jsYaml: typeof JsYaml | undefined;

/**
 * Tests only: require `packageName` for the ACL files from now on (a name that does not exist simulates a broker
 * without js-yaml); without a name, back to js-yaml. Forgets the loaded module.
 * @internal
 */
export function setAclYamlPackageForTest(packageName?: string): void {
  aclYamlPackage = packageName ?? ACL_YAML_PACKAGE;
  jsYaml = undefined;
}

/** js-yaml, required on first use (a broker with aclEnable=true): an AclException naming it when it is not installed. */
function yaml(): typeof JsYaml {
  if (jsYaml) return jsYaml;
  try {
    // A runtime require on purpose: the package is needed by ACL brokers only.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    jsYaml = require(aclYamlPackage) as typeof JsYaml;
  } catch (err) {
    throw new AclException(`the ACL files are read with the package ${aclYamlPackage}, which is not installed here (npm install ${aclYamlPackage})`, null, { cause: err });
  }
  return jsYaml;
}

const PPM = 'org.apache.rocketmq.acl.plain.PlainPermissionManager';
/** The Java frames that throw each refusal (their remark ends with it). */
export const ACL_FRAMES = Object.freeze({
  needAdmin: `${PPM}.checkPerm(PlainPermissionManager.java:581)`,
  defaultPerm: `${PPM}.checkPerm(PlainPermissionManager.java:606)`,
  explicitPerm: `${PPM}.checkPerm(PlainPermissionManager.java:611)`,
  noAccessKey: `${PPM}.validate(PlainPermissionManager.java:664)`,
  noAclConfig: `${PPM}.validate(PlainPermissionManager.java:668)`,
  noResource: `${PPM}.validate(PlainPermissionManager.java:675)`,
  signature: `${PPM}.validate(PlainPermissionManager.java:684)`,
});

/** TopicValidator.RMQ_SYS_TRACE_TOPIC: a PUB to it skips the permission check. */
const RMQ_SYS_TRACE_TOPIC = 'RMQ_SYS_TRACE_TOPIC';
/** AclConstants.ACCESS_KEY_MIN_LENGTH / SECRET_KEY_MIN_LENGTH (a key must be longer). */
const KEY_MIN_LENGTH = 6;

export interface PlainPermissionManagerOptions {
  /** ROCKETMQ_HOME (Java's rocketmq.home.dir); empty: no file, every signed request is refused. */
  fileHome: string;
  /** The default ACL file relative to the home (Java's rocketmq.acl.plain.file). */
  aclPlainFile: string;
  /** How often the files are checked for changes (AclFileWatchService: 5000 ms). */
  watchIntervalMillis: number;
  logger?: Logger;
}

export const DEFAULT_PLAIN_PERMISSION_MANAGER_OPTIONS: Readonly<Omit<PlainPermissionManagerOptions, 'logger'>> = Object.freeze({
  fileHome: process.env.ROCKETMQ_HOME ?? '',
  aclPlainFile: 'conf/plain_acl.yml',
  watchIntervalMillis: 5000,
});

/** The whole config of a broker (GET_BROKER_CLUSTER_ACL_CONFIG's AclConfig). */
export interface AclConfig {
  globalWhiteAddrs: string[];
  plainAccessConfigs: PlainAccessConfig[];
}

interface AclState {
  /** Files in load order. */
  fileList: string[];
  /** accessKey → (file, account). */
  accounts: Map<string, { file: string; owned: OwnedAccess; config: PlainAccessConfig }>;
  globalWhite: RemoteAddressStrategy[];
  globalWhiteAddrs: string[];
  dataVersionMap: Map<string, DataVersion>;
}

type YamlMap = Record<string, unknown>;

function emptyState(): AclState {
  return { fileList: [], accounts: new Map(), globalWhite: [], globalWhiteAddrs: [], dataVersionMap: new Map() };
}

function scalarString(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  throw new AclException(`expected a scalar, got ${JSON.stringify(v)}`);
}

function stringList(v: unknown, field: string): string[] | null {
  if (v === null || v === undefined) return null;
  if (!Array.isArray(v)) throw new AclException(`${field} must be a list`);
  return v.map((x) => scalarString(x) ?? 'null');
}

/** fastjson's reading of one account map into PlainAccessConfig. */
export function toPlainAccessConfig(o: unknown): PlainAccessConfig {
  if (o === null || typeof o !== 'object' || Array.isArray(o)) throw new AclException(`an account must be a map, got ${JSON.stringify(o)}`);
  const m = o as YamlMap;
  const admin = m.admin;
  return {
    accessKey: scalarString(m.accessKey),
    secretKey: scalarString(m.secretKey),
    whiteRemoteAddress: scalarString(m.whiteRemoteAddress),
    admin: admin === true || (typeof admin === 'string' && admin.trim().toLowerCase() === 'true'),
    defaultTopicPerm: scalarString(m.defaultTopicPerm),
    defaultGroupPerm: scalarString(m.defaultGroupPerm),
    topicPerms: stringList(m.topicPerms, 'topicPerms'),
    groupPerms: stringList(m.groupPerms, 'groupPerms'),
  };
}

/** PlainPermissionManager.checkPlainAccessConfig. */
export function checkPlainAccessConfig(c: PlainAccessConfig): void {
  if (c.accessKey === null || c.secretKey === null || c.accessKey.length <= KEY_MIN_LENGTH || c.secretKey.length <= KEY_MIN_LENGTH) {
    throw new AclException(
      `The accessKey=${c.accessKey} and secretKey=${c.secretKey} cannot be null and length should longer than 6`,
    );
  }
}

/** PlainPermissionManager.buildPlainAccessResource. */
export function buildOwnedAccess(c: PlainAccessConfig): OwnedAccess {
  checkPlainAccessConfig(c);
  let map: Map<string, number> | null = null;
  for (const [group, perm] of parseResourcePerms(false, c.groupPerms)) (map ??= new Map()).set(getRetryTopic(group) as string, perm);
  for (const [topic, perm] of parseResourcePerms(true, c.topicPerms)) (map ??= new Map()).set(topic, perm);
  return {
    accessKey: c.accessKey as string,
    secretKey: c.secretKey as string,
    whiteRemoteAddress: c.whiteRemoteAddress,
    admin: c.admin,
    defaultTopicPerm: parsePermFromString(c.defaultTopicPerm),
    defaultGroupPerm: parsePermFromString(c.defaultGroupPerm),
    resourcePermMap: map,
    remoteAddressStrategy: getRemoteAddressStrategy(c.whiteRemoteAddress),
  };
}

/** Parses one ACL file's text; a YAML error is an AclException naming the file and the line. */
export function parseAclYaml(text: string, file: string): YamlMap | null {
  let data: unknown;
  const y = yaml();
  try {
    data = y.load(text, { filename: file });
  } catch (err) {
    const e = err as { mark?: { line?: number; column?: number }; reason?: string; message?: string };
    const line = e.mark?.line !== undefined ? e.mark.line + 1 : '?';
    const col = e.mark?.column !== undefined ? e.mark.column + 1 : '?';
    throw new AclException(`malformed ACL file ${file}, line ${line}, column ${col}: ${e.reason ?? e.message}`, null, { cause: err });
  }
  if (data === null || data === undefined) return null;
  if (typeof data !== 'object' || Array.isArray(data)) throw new AclException(`malformed ACL file ${file}: the top level must be a map`);
  return data as YamlMap;
}

function dataVersionFromYaml(v: unknown): DataVersion {
  const dv = newDataVersion();
  if (Array.isArray(v) && v.length > 0 && v[0] && typeof v[0] === 'object') {
    const first = v[0] as YamlMap;
    if (first.timestamp !== undefined) dv.timestamp = Number(first.timestamp);
    if (first.counter !== undefined) dv.counter = Number(first.counter);
  }
  return dv;
}

export class PlainPermissionManager {
  readonly options: Readonly<PlainPermissionManagerOptions>;
  readonly defaultAclDir: string;
  readonly defaultAclFile: string;
  readonly #logger: Logger;
  #state: AclState = emptyState();
  #watch: ServiceLoop | null = null;
  #mtimes = new Map<string, number>();
  /** Serializes loads and file rewrites. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: Partial<PlainPermissionManagerOptions> = {}) {
    this.options = Object.freeze({ ...DEFAULT_PLAIN_PERMISSION_MANAGER_OPTIONS, ...options });
    this.#logger = componentLogger('acl', options.logger);
    const home = this.options.fileHome;
    this.defaultAclDir = path.resolve(home, 'conf', 'acl');
    this.defaultAclFile = path.resolve(home, this.options.aclPlainFile);
  }

  #serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** The ACL files: every *.yml / *.yaml under conf/acl (tools.yml aside), then the default file. */
  async getAllAclFiles(dir: string = this.defaultAclDir): Promise<string[]> {
    let entries: import('node:fs').Dirent[];
    try {
      entries = await fsp.readdir(dir, { withFileTypes: true });
    } catch {
      return [];
    }
    const out: string[] = [];
    for (const e of entries) {
      const full = path.join(dir, e.name);
      if (full === path.join(this.defaultAclDir, 'tools.yml')) continue;
      if (e.name.endsWith('.yml') || e.name.endsWith('.yaml')) out.push(full);
      else if (e.isDirectory()) out.push(...(await this.getAllAclFiles(full)));
    }
    return out;
  }

  async #fileList(): Promise<string[]> {
    const list = await this.getAllAclFiles();
    if (!list.includes(this.defaultAclFile) && (await fsp.stat(this.defaultAclFile).catch(() => null))) list.push(this.defaultAclFile);
    return list;
  }

  /**
   * Loads every ACL file and swaps the rules in at once. Throws (AclException, naming the file and line) when a
   * file is malformed; the rules in force then stay.
   */
  load(): Promise<void> {
    return this.#serial(() => this.#load());
  }

  async #load(): Promise<void> {
    if (!this.options.fileHome) {
      this.#logger.warn('no rocketmqHome (ROCKETMQ_HOME / rocketmq.home.dir): no ACL file, every request that is not white-listed is refused');
      return;
    }
    // Java's assureAclConfigFilesExist.
    if (!(await fsp.stat(this.defaultAclFile).catch(() => null))) {
      await fsp.mkdir(path.dirname(this.defaultAclFile), { recursive: true });
      await fsp.writeFile(this.defaultAclFile, '', { flag: 'a' });
    }
    const state = emptyState();
    state.fileList = await this.#fileList();
    const mtimes = new Map<string, number>();
    for (const file of state.fileList) {
      const st = await fsp.stat(file).catch(() => null);
      mtimes.set(file, st ? st.mtimeMs : 0);
      const text = await fsp.readFile(file, 'utf8').catch(() => null);
      if (text === null) continue;
      const data = parseAclYaml(text, file);
      if (!data || Object.keys(data).length === 0) {
        this.#logger.warn({ file }, 'no data in ACL file');
        continue;
      }
      try {
        const white = stringList(data.globalWhiteRemoteAddresses, 'globalWhiteRemoteAddresses') ?? [];
        for (const w of white) state.globalWhite.push(getRemoteAddressStrategy(w));
        state.globalWhiteAddrs.push(...white);
        const accounts = data.accounts;
        if (accounts !== null && accounts !== undefined && !Array.isArray(accounts)) throw new AclException('accounts must be a list');
        for (const [i, a] of ((accounts as unknown[]) ?? []).entries()) {
          let config: PlainAccessConfig;
          let owned: OwnedAccess;
          try {
            config = toPlainAccessConfig(a);
            owned = buildOwnedAccess(config);
          } catch (err) {
            throw new AclException(`account #${i + 1}: ${(err as Error).message}`, null, { cause: err });
          }
          if (state.accounts.has(owned.accessKey)) {
            this.#logger.warn({ accessKey: owned.accessKey, file }, 'the access key is repeated in multiple ACL files');
            continue;
          }
          state.accounts.set(owned.accessKey, { file, owned, config });
        }
      } catch (err) {
        throw new AclException(`malformed ACL file ${file}: ${(err as Error).message}`, null, { cause: err });
      }
      state.dataVersionMap.set(file, dataVersionFromYaml(data.dataVersion));
    }
    this.#state = state;
    this.#mtimes = mtimes;
    this.#logger.info({ files: state.fileList, accounts: state.accounts.size, globalWhite: state.globalWhiteAddrs.length }, 'ACL rules loaded');
  }

  /** Starts checking the files for changes (Java's AclFileWatchService). Idempotent. */
  startWatching(): void {
    if (this.#watch) return;
    this.#watch = new ServiceLoop(
      { name: 'AclFileWatchService', intervalMillis: this.options.watchIntervalMillis, logger: this.#logger },
      async () => {
        await this.checkFiles();
      },
    );
    this.#watch.start();
  }

  async stopWatching(): Promise<void> {
    const w = this.#watch;
    this.#watch = null;
    if (w) await w.stop();
    await this.#queue;
  }

  /** One round of the watch: reloads when a file was added, removed or modified. Resolves with whether it reloaded. */
  async checkFiles(): Promise<boolean> {
    if (!this.options.fileHome) return false;
    const list = await this.#fileList();
    let changed = list.length !== this.#mtimes.size;
    for (const f of list) {
      if (changed) break;
      const st = await fsp.stat(f).catch(() => null);
      if (!this.#mtimes.has(f) || (st ? st.mtimeMs : 0) !== this.#mtimes.get(f)) changed = true;
    }
    if (!changed) return false;
    try {
      await this.load();
      return true;
    } catch (err) {
      // Remember the times so a broken file is reported once, not every round.
      for (const f of list) {
        const st = await fsp.stat(f).catch(() => null);
        this.#mtimes.set(f, st ? st.mtimeMs : 0);
      }
      this.#logger.error({ err: (err as Error).message }, 'ACL file reload failed, the previous rules stay in force');
      return false;
    }
  }

  /** PlainPermissionManager.validate: returns when the request may go on, throws AclException otherwise. */
  validate(resource: PlainAccessResource): void {
    const state = this.#state;
    for (const s of state.globalWhite) if (s.match(resource.whiteRemoteAddress)) return;
    if (resource.accessKey === null) throw new AclException('No accessKey is configured', ACL_FRAMES.noAccessKey);
    const entry = state.accounts.get(resource.accessKey);
    if (!entry) throw new AclException(`No acl config for ${resource.accessKey}`, ACL_FRAMES.noAclConfig);
    const owned = entry.owned;
    if (owned.remoteAddressStrategy.match(resource.whiteRemoteAddress)) return;
    const signature = resource.content !== null
      ? signContent(resource.content, owned.secretKey)
      : calculateSignature(resource.extFields ?? {}, resource.body, owned.secretKey, SERVER_EXCLUDED);
    if (signature !== resource.signature) {
      throw new AclException(`Check signature failed for accessKey=${resource.accessKey}`, ACL_FRAMES.signature);
    }
    if (resource.resourcePermMap?.get(RMQ_SYS_TRACE_TOPIC) === Permission.PUB) return;
    checkPerm(resource, owned);
  }

  /** UPDATE_AND_CREATE_ACL_CONFIG: creates the account in the default file or updates it where it is defined. */
  updateAccessConfig(config: PlainAccessConfig): Promise<boolean> {
    return this.#serial(async () => {
      checkPlainAccessConfig(config);
      checkResourcePerms(config.topicPerms);
      checkResourcePerms(config.groupPerms);
      const known = this.#state.accounts.get(config.accessKey as string);
      const file = known ? known.file : this.defaultAclFile;
      const data = (await this.#readMap(file)) ?? {};
      let accounts = Array.isArray(data.accounts) ? (data.accounts as YamlMap[]) : [];
      const idx = accounts.findIndex((a) => a && scalarString(a.accessKey) === config.accessKey);
      const existing = idx >= 0 ? accounts[idx] : null;
      if (idx >= 0) accounts = [...accounts.slice(0, idx), ...accounts.slice(idx + 1)];
      accounts.push(createAclAccessConfigMap(existing, config));
      data.accounts = accounts;
      await this.#write(file, data);
      await this.#load();
      return true;
    });
  }

  /** DELETE_ACL_CONFIG: false when the access key is unknown. */
  deleteAccessConfig(accessKey: string | null): Promise<boolean> {
    return this.#serial(async () => {
      if (!accessKey) return false;
      const known = this.#state.accounts.get(accessKey);
      if (!known) return false;
      const data = await this.#readMap(known.file);
      if (!data) return true;
      const accounts = Array.isArray(data.accounts) ? (data.accounts as YamlMap[]) : [];
      const idx = accounts.findIndex((a) => a && scalarString(a.accessKey) === accessKey);
      if (idx < 0) return false;
      accounts.splice(idx, 1);
      data.accounts = accounts;
      await this.#write(known.file, data);
      await this.#load();
      return true;
    });
  }

  /** UPDATE_GLOBAL_WHITE_ADDRS_CONFIG: replaces the file's globalWhiteRemoteAddresses; the file must be an ACL file under the home. */
  updateGlobalWhiteAddrsConfig(addrs: string[] | null, fileName?: string | null): Promise<boolean> {
    return this.#serial(async () => {
      const file = fileName ? path.resolve(fileName) : this.defaultAclFile;
      if (addrs === null) return false;
      const st = await fsp.stat(file).catch(() => null);
      if (!st || st.isDirectory()) {
        this.#logger.error({ file }, 'the ACL file does not exist or is a directory');
        return false;
      }
      if (!this.options.fileHome || !file.startsWith(path.resolve(this.options.fileHome))) {
        this.#logger.error({ file }, 'the ACL file is not under rocketmq.home.dir');
        return false;
      }
      for (const a of addrs) getRemoteAddressStrategy(a);
      const data = (await this.#readMap(file)) ?? {};
      data.globalWhiteRemoteAddresses = [...addrs];
      await this.#write(file, data);
      await this.#load();
      return true;
    });
  }

  /** GET_BROKER_CLUSTER_ACL_CONFIG's AclConfig: the accounts and white addresses of every file. */
  getAllAclConfig(): AclConfig {
    const st = this.#state;
    return {
      globalWhiteAddrs: [...st.globalWhiteAddrs],
      plainAccessConfigs: [...st.accounts.values()].map((a) => ({ ...a.config })),
    };
  }

  /** The default file's data version as JSON (deprecated getAclConfigDataVersion). */
  getAclConfigDataVersion(): string {
    const dv = this.#state.dataVersionMap.get(this.defaultAclFile) ?? { timestamp: 0, counter: 0 };
    return JSON.stringify(dataVersionToJson(dv));
  }

  getDataVersionMap(): Map<string, DataVersion> {
    return new Map(this.#state.dataVersionMap);
  }

  async #readMap(file: string): Promise<YamlMap | null> {
    const text = await fsp.readFile(file, 'utf8').catch(() => null);
    return text === null ? null : parseAclYaml(text, file);
  }

  /** Writes the map with a bumped dataVersion (updateAclConfigFileVersion + writeDataObject), atomically. */
  async #write(file: string, data: YamlMap): Promise<void> {
    const dv = dataVersionFromYaml(data.dataVersion);
    dv.counter += 1;
    dv.timestamp = Date.now();
    data.dataVersion = [{ counter: dv.counter, timestamp: dv.timestamp }];
    const tmp = `${file}.tmp`;
    await fsp.mkdir(path.dirname(file), { recursive: true });
    await fsp.writeFile(tmp, yaml().dump(data, { lineWidth: -1 }));
    await fsp.rename(tmp, file);
  }
}

/** PlainPermissionManager.createAclAccessConfigMap: the account map written back to the file. */
function createAclAccessConfigMap(existing: YamlMap | null, c: PlainAccessConfig): YamlMap {
  const m: YamlMap = existing ? { ...existing } : {};
  if (!c.accessKey || c.accessKey.length <= KEY_MIN_LENGTH) {
    throw new AclException(`The accessKey=${c.accessKey} cannot be null and length should longer than 6`);
  }
  m.accessKey = c.accessKey;
  if (c.secretKey) {
    if (c.secretKey.length <= KEY_MIN_LENGTH) throw new AclException(`The secretKey=${c.secretKey} value length should longer than 6`);
    m.secretKey = c.secretKey;
  }
  if (c.whiteRemoteAddress !== null) m.whiteRemoteAddress = c.whiteRemoteAddress;
  m.admin = c.admin;
  if (c.defaultTopicPerm) m.defaultTopicPerm = c.defaultTopicPerm;
  if (c.defaultGroupPerm) m.defaultGroupPerm = c.defaultGroupPerm;
  if (c.topicPerms !== null) m.topicPerms = c.topicPerms;
  if (c.groupPerms !== null) m.groupPerms = c.groupPerms;
  return m;
}

/** PlainPermissionManager.checkPerm; resources are visited in Java's HashMap order, so the same one fails first. */
export function checkPerm(needed: PlainAccessResource, owned: OwnedAccess): void {
  if (needAdminPerm(needed.requestCode) && !owned.admin) {
    throw new AclException(
      `Need admin permission for request code=${needed.requestCode}, but accessKey=${owned.accessKey} is not`,
      ACL_FRAMES.needAdmin,
    );
  }
  const neededMap = needed.resourcePermMap;
  const ownedMap = owned.resourcePermMap;
  if (neededMap === null) return;
  if (ownedMap === null && owned.admin) return;
  const keys = neededMap.size > 1 ? javaHashOrderKeys(neededMap.keys()) : neededMap.keys();
  for (const resource of keys) {
    const neededPerm = neededMap.get(resource) as number;
    const isGroup = isRetryTopic(resource);
    const explicit = ownedMap?.get(resource);
    if (explicit === undefined) {
      const ownedPerm = isGroup ? owned.defaultGroupPerm : owned.defaultTopicPerm;
      if (!checkPermission(neededPerm, ownedPerm)) {
        throw new AclException(`No default permission for ${printStr(resource, isGroup)}`, ACL_FRAMES.defaultPerm);
      }
      continue;
    }
    if (!checkPermission(neededPerm, explicit)) {
      throw new AclException(`No default permission for ${printStr(resource, isGroup)}`, ACL_FRAMES.explicitPerm);
    }
  }
}
