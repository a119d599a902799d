/**
 * `npm run docs`: writes the generated regions of docs/*.md from the code, so the pages cannot drift from it.
 *
 * A region is `<!-- generated:NAME -->` ... `<!-- /generated:NAME -->`; its body is rebuilt from:
 * - option tables: the `DEFAULT_*` objects (defaults, read at run time) and the doc comments of the config interfaces
 *   (read with the TypeScript compiler API); a `@default text` tag in a doc comment replaces a default that depends on
 *   the machine (host name, home directory, environment);
 * - the broker.conf table: every key `applyBrokerProperties` accepts (lib/broker/broker-config.ts), with the Java
 *   classes that have it at 4.9.8 and 5.3.3 (scripts/java-config-keys.json, read from the Java source);
 * - the CLI reference: the usage texts the commands print for `--help`.
 *
 * `npm run docs -- --check` writes nothing and exits 1 when a page differs from what it would write.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { DEFAULT_CLIENT_CONFIG } from '../lib/client/client-config';
import { DEFAULT_PRODUCER_OPTIONS } from '../lib/producer/default-mq-producer';
import { DEFAULT_TRANSACTION_PRODUCER_OPTIONS } from '../lib/producer/transaction-mq-producer';
import { DEFAULT_PUSH_CONSUMER_OPTIONS } from '../lib/consumer/push-consumer';
import { DEFAULT_LITE_PULL_CONSUMER_OPTIONS } from '../lib/consumer/lite-pull-consumer';
import { DEFAULT_SIMPLE_CONSUMER_OPTIONS } from '../lib/consumer/simple-consumer';
import { DEFAULT_MQ_ADMIN_EXT_OPTIONS } from '../lib/admin/default-mq-admin-ext';
import { DEFAULT_NAMESRV_CONFIG } from '../lib/namesrv/namesrv-config';
import {
  DEFAULT_BROKER_CONFIG, IGNORED_NETTY_KEYS, REMOTING_KEYS, applyBrokerProperties,
} from '../lib/broker/broker-config';
import { DEFAULT_MESSAGE_STORE_CONFIG } from '../lib/store/message-store-config';
import { DEFAULT_REMOTING_SERVER_OPTIONS } from '../lib/transport/remoting-server';
import { USAGE as MAIN_USAGE } from '../lib/cli/main';
import { START_USAGE } from '../lib/cli/start';
import { NAMESRV_USAGE } from '../lib/cli/namesrv';
import { BROKER_USAGE } from '../lib/cli/broker';
import { BENCH_PRODUCE_USAGE } from '../lib/cli/bench-produce';
import { BENCH_CONSUME_USAGE } from '../lib/cli/bench-consume';
import { DASHBOARD_USAGE } from '../lib/cli/dashboard';
import { CONTROLLER_USAGE } from '../lib/cli/controller';
import { DEFAULT_CONTROLLER_CONFIG } from '../lib/controller/controller-config';
import { commandUsages, usage as adminUsage } from '../lib/cli/admin';

/** The repository root (this file runs as dist/scripts/gen-docs.js). */
export const REPO_ROOT = path.resolve(__dirname, '..', '..');

interface JavaKeys {
  '4.9.8': Record<string, string[]>;
  '5.3.3': Record<string, string[]>;
}

function javaKeys(root: string): JavaKeys {
  return JSON.parse(fs.readFileSync(path.join(root, 'scripts', 'java-config-keys.json'), 'utf8')) as JavaKeys;
}

// ------------------------------------------------------------------ doc comments

interface MemberDoc {
  name: string;
  doc: string;
  /** The `@default` tag's text, when the comment has one. */
  defaultText?: string;
  optional: boolean;
}

const sourceCache = new Map<string, ts.SourceFile>();

function sourceFile(root: string, rel: string): ts.SourceFile {
  const file = path.join(root, rel);
  let sf = sourceCache.get(file);
  if (!sf) {
    sf = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
    sourceCache.set(file, sf);
  }
  return sf;
}

/** The own members of `interface name` in `rel`, in source order, with their doc comments. */
export function interfaceMembers(root: string, rel: string, name: string): MemberDoc[] {
  const sf = sourceFile(root, rel);
  const decl = sf.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === name);
  if (!decl) throw new Error(`${rel}: no interface ${name}`);
  const out: MemberDoc[] = [];
  for (const m of decl.members) {
    if (!ts.isPropertySignature(m) || !m.name || !ts.isIdentifier(m.name)) continue;
    let doc = '';
    let defaultText: string | undefined;
    for (const j of ts.getJSDocCommentsAndTags(m)) {
      if (!ts.isJSDoc(j)) continue;
      doc = (ts.getTextOfJSDocComment(j.comment) ?? '').replace(/\s+/g, ' ').trim();
      for (const tag of j.tags ?? []) {
        if (tag.tagName.text === 'default') defaultText = (ts.getTextOfJSDocComment(tag.comment) ?? '').replace(/\s+/g, ' ').trim();
      }
    }
    out.push({ name: m.name.text, doc, defaultText, optional: m.questionToken !== undefined });
  }
  return out;
}

// ------------------------------------------------------------------ formatting

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function formatValue(v: unknown): string {
  if (v === undefined) return '—';
  if (typeof v === 'string') {
    // A default built from the machine reads the same on every machine.
    if (v === os.hostname()) return 'the host name';
    const home = os.homedir();
    const shown = home && v.startsWith(home) ? `~${v.slice(home.length)}` : v;
    return shown === '' ? '`""`' : `\`${shown}\``;
  }
  if (Array.isArray(v)) return `\`[${v.join(', ')}]\``;
  if (typeof v === 'number' && Number.isInteger(v) && v >= 1024 * 1024) {
    for (const [unit, size] of [['GiB', 1024 ** 3], ['MiB', 1024 ** 2]] as const) {
      if (v % size === 0) return `\`${v}\` (${v / size} ${unit})`;
    }
  }
  return `\`${String(v)}\``;
}

function defaultCell(m: MemberDoc, defaults: Record<string, unknown>): string {
  if (m.defaultText !== undefined) return cell(m.defaultText);
  return cell(formatValue(defaults[m.name]));
}

function setterName(key: string): string {
  return `set${key[0].toUpperCase()}${key.slice(1)}`;
}

interface OptionTable {
  file: string;
  iface: string;
  defaults: Record<string, unknown>;
  /** Java classes whose setters are the equivalents (most specific first). */
  java: string[];
  /** Members not to list (test hooks). */
  skip?: string[];
  /** No Java column (options Java has no counterpart for). */
  noJava?: boolean;
}

function optionTable(root: string, t: OptionTable, keys: JavaKeys): string {
  const rows = t.noJava ? ['| Option | Default | Meaning |', '| --- | --- | --- |'] : ['| Option | Default | Meaning | Java 4.9.8 |', '| --- | --- | --- | --- |'];
  for (const m of interfaceMembers(root, t.file, t.iface)) {
    if (t.skip?.includes(m.name)) continue;
    const row = `| \`${m.name}\` | ${defaultCell(m, t.defaults)} | ${cell(m.doc || '—')} |`;
    if (t.noJava) {
      rows.push(row);
      continue;
    }
    const javaClass = t.java.find((c) => keys['4.9.8'][c]?.includes(m.name));
    rows.push(`${row} ${javaClass ? `\`${javaClass}.${setterName(m.name)}\`` : '— (not in Java)'} |`);
  }
  return rows.join('\n');
}

// ------------------------------------------------------------------ broker.conf

/** Every key applyBrokerProperties accepts, probed with the function itself over every key we or Java know. */
export function brokerConfKeys(keys: JavaKeys): string[] {
  const candidates = new Set<string>([
    ...Object.keys(DEFAULT_BROKER_CONFIG), ...Object.keys(DEFAULT_MESSAGE_STORE_CONFIG), ...Object.keys(REMOTING_KEYS),
    ...IGNORED_NETTY_KEYS, ...Object.values(keys['4.9.8']).flat(), ...Object.values(keys['5.3.3']).flat(),
  ]);
  const accepted: string[] = [];
  for (const key of candidates) {
    // '1' parses as a number, a boolean (false) and a string alike; a key that rejects it was recognized too.
    let known: boolean;
    try {
      known = applyBrokerProperties(new Map([[key, '1']])).unknownKeys.length === 0;
    } catch {
      known = true;
    }
    if (known) accepted.push(key);
  }
  return accepted;
}

function brokerConfTable(root: string, keys: JavaKeys): string {
  const docs = new Map<string, MemberDoc>();
  const own = new Map<string, string[]>();
  const add = (members: MemberDoc[], where: string) => {
    for (const m of members) {
      if (!docs.has(m.name) || !docs.get(m.name)!.doc) docs.set(m.name, m);
      own.set(m.name, [...(own.get(m.name) ?? []), where]);
    }
  };
  add(interfaceMembers(root, 'lib/broker/broker-config.ts', 'BrokerConfig'), 'BrokerConfig');
  add(interfaceMembers(root, 'lib/store/message-store-config.ts', 'MessageStoreConfig'), 'MessageStoreConfig');
  const remoting = interfaceMembers(root, 'lib/transport/remoting-server.ts', 'RemotingServerOptions');
  add(remoting.filter((m) => Object.values(REMOTING_KEYS).includes(m.name as never)), 'server');
  const javaWhere = (version: '4.9.8' | '5.3.3', key: string): string => {
    const classes = ['BrokerConfig', 'MessageStoreConfig', 'NettyServerConfig', 'NettyClientConfig'].filter((c) => keys[version][c]?.includes(key));
    return classes.length ? classes.join(', ') : 'no';
  };
  const defaults: Record<string, unknown> = {
    ...DEFAULT_REMOTING_SERVER_OPTIONS, ...DEFAULT_MESSAGE_STORE_CONFIG, ...DEFAULT_BROKER_CONFIG,
  };
  const accepted = brokerConfKeys(keys);
  const used = accepted.filter((k) => !IGNORED_NETTY_KEYS.has(k) || own.has(k)).sort((a, b) => a.localeCompare(b));
  const ignored = accepted.filter((k) => IGNORED_NETTY_KEYS.has(k) && !own.has(k)).sort((a, b) => a.localeCompare(b));
  const rows = ['| Key | Default | Meaning | Sets | Java 4.9.8 | Java 5.3.3 |', '| --- | --- | --- | --- | --- | --- |'];
  for (const k of used) {
    const m = docs.get(k) ?? { name: k, doc: '', optional: false };
    rows.push(`| \`${k}\` | ${defaultCell(m, defaults)} | ${cell(m.doc || '—')} | ${(own.get(k) ?? []).join(', ')} | ${javaWhere('4.9.8', k)} | ${javaWhere('5.3.3', k)} |`);
  }
  let s = rows.join('\n');
  s += `\n\nAccepted and without effect here (Java thread pools, socket buffers, queue capacities, off-heap pools, the TLS and DLedger switches; the broker is one event loop): ${ignored.map((k) => `\`${k}\``).join(', ')}.`;
  const javaOnly = keys['4.9.8'].BrokerConfig.concat(keys['4.9.8'].MessageStoreConfig, keys['4.9.8'].NettyServerConfig, keys['4.9.8'].NettyClientConfig)
    .filter((k, i, a) => a.indexOf(k) === i && !accepted.includes(k)).sort((a, b) => a.localeCompare(b));
  s += `\n\nJava 4.9.8 keys this broker does not read (reported as unknown at start, not fatal): ${javaOnly.map((k) => `\`${k}\``).join(', ')}.`;
  return s;
}

// ------------------------------------------------------------------ CLI

function codeBlock(text: string): string {
  return '```text\n' + text.replace(/\s+$/, '') + '\n```';
}

function adminReference(): string {
  const parts = [codeBlock(adminUsage())];
  for (const { name, usage } of commandUsages()) parts.push(`#### ${name}\n\n${codeBlock(usage)}`);
  return parts.join('\n\n');
}

// ------------------------------------------------------------------ regions

export function regionGenerators(root: string): Map<string, () => string> {
  const keys = javaKeys(root);
  const client = ['ClientConfig'];
  const table = (t: OptionTable) => () => optionTable(root, t, keys);
  return new Map<string, () => string>([
    ['options:client', table({ file: 'lib/client/client-config.ts', iface: 'ClientConfigOptions', defaults: { ...DEFAULT_CLIENT_CONFIG }, java: client })],
    ['options:producer', table({ file: 'lib/producer/default-mq-producer.ts', iface: 'ProducerOptions', defaults: { ...DEFAULT_PRODUCER_OPTIONS }, java: ['DefaultMQProducer', ...client] })],
    ['options:transaction-producer', table({
      file: 'lib/producer/transaction-mq-producer.ts', iface: 'TransactionProducerOptions', defaults: { ...DEFAULT_TRANSACTION_PRODUCER_OPTIONS },
      java: ['TransactionMQProducer', 'DefaultMQProducer', ...client],
    })],
    ['options:push-consumer', table({
      file: 'lib/consumer/push-consumer.ts', iface: 'PushConsumerOptions', defaults: { ...DEFAULT_PUSH_CONSUMER_OPTIONS },
      java: ['DefaultMQPushConsumer', ...client], skip: ['client'],
    })],
    ['options:lite-pull-consumer', table({
      file: 'lib/consumer/lite-pull-consumer.ts', iface: 'LitePullConsumerOptions', defaults: { ...DEFAULT_LITE_PULL_CONSUMER_OPTIONS },
      java: ['DefaultLitePullConsumer', ...client], skip: ['client'],
    })],
    ['options:simple-consumer', table({
      file: 'lib/consumer/simple-consumer.ts', iface: 'SimpleConsumerOptions', defaults: { ...DEFAULT_SIMPLE_CONSUMER_OPTIONS }, java: [], noJava: true,
    })],
    ['options:admin', table({ file: 'lib/admin/default-mq-admin-ext.ts', iface: 'DefaultMQAdminExtOptions', defaults: { ...DEFAULT_MQ_ADMIN_EXT_OPTIONS }, java: [] })],
    ['options:namesrv', table({ file: 'lib/namesrv/namesrv-config.ts', iface: 'NamesrvConfig', defaults: { ...DEFAULT_NAMESRV_CONFIG }, java: ['NamesrvConfig', 'NettyServerConfig'] })],
    ['options:controller', table({ file: 'lib/controller/controller-config.ts', iface: 'ControllerConfig', defaults: { ...DEFAULT_CONTROLLER_CONFIG }, java: [], noJava: true })],
    ['options:start-cluster', table({ file: 'lib/cluster.ts', iface: 'StartClusterOptions', defaults: {}, java: [], noJava: true })],
    ['broker-conf', () => brokerConfTable(root, keys)],
    ['cli:main', () => codeBlock(MAIN_USAGE)],
    ['cli:start', () => codeBlock(START_USAGE)],
    ['cli:namesrv', () => codeBlock(NAMESRV_USAGE)],
    ['cli:broker', () => codeBlock(BROKER_USAGE)],
    ['cli:bench-produce', () => codeBlock(BENCH_PRODUCE_USAGE)],
    ['cli:bench-consume', () => codeBlock(BENCH_CONSUME_USAGE)],
    ['cli:admin', adminReference],
    ['cli:dashboard', () => codeBlock(DASHBOARD_USAGE)],
    ['cli:controller', () => codeBlock(CONTROLLER_USAGE)],
  ]);
}

const REGION = /<!-- generated:([a-z0-9:-]+) -->\n[\s\S]*?<!-- \/generated:\1 -->/g;

/** The pages with their regions rebuilt: file → [current text, generated text]. Throws on an unknown region name. */
export function generateDocs(root = REPO_ROOT): Map<string, { current: string; next: string }> {
  const gens = regionGenerators(root);
  const cache = new Map<string, string>();
  const used = new Set<string>();
  const dir = path.join(root, 'docs');
  const out = new Map<string, { current: string; next: string }>();
  for (const name of fs.readdirSync(dir).filter((f) => f.endsWith('.md')).sort()) {
    const file = path.join(dir, name);
    const current = fs.readFileSync(file, 'utf8');
    const next = current.replace(REGION, (_m, region: string) => {
      const gen = gens.get(region);
      if (!gen) throw new Error(`docs/${name}: unknown generated region ${region}`);
      used.add(region);
      if (!cache.has(region)) cache.set(region, gen());
      return `<!-- generated:${region} -->\n<!-- Generated by npm run docs from the code: edit the code, not this region. -->\n\n${cache.get(region)}\n\n<!-- /generated:${region} -->`;
    });
    out.set(file, { current, next });
  }
  const missing = [...gens.keys()].filter((r) => !used.has(r));
  if (missing.length) throw new Error(`generated regions no page holds: ${missing.join(', ')}`);
  return out;
}

/** Writes the pages (or, with check, only compares); returns the files that differ. */
export function runDocs(check: boolean, root = REPO_ROOT): string[] {
  const differ: string[] = [];
  for (const [file, { current, next }] of generateDocs(root)) {
    if (current === next) continue;
    differ.push(path.relative(root, file));
    if (!check) fs.writeFileSync(file, next);
  }
  return differ;
}

if (require.main === module) {
  const check = process.argv.includes('--check');
  try {
    const differ = runDocs(check);
    if (check && differ.length) {
      process.stderr.write(`docs out of date (run npm run docs): ${differ.join(', ')}\n`);
      process.exitCode = 1;
    } else {
      process.stdout.write(differ.length ? `${check ? 'differ' : 'wrote'}: ${differ.join(', ')}\n` : 'docs up to date\n');
    }
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  }
}
