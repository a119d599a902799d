/**
 * Shared readers for the message tests: the Java consumer's view of the 4.9.8 store, the commit log, and the
 * PULL_MESSAGE responses of the captures paired with their requests.
 */
import fs from 'node:fs';
import { RemotingCommand } from '../../../../protocol/remoting-command';
import { frameIndex, goldenPath, readFrame } from '../../../helpers/golden';

export interface ExpectedMessage {
  topic: string;
  queueId: number;
  queueOffset: number;
  msgId: string;
  tags: string | undefined;
  /** Java printed the keys joined with ','; undefined when it printed '-'. */
  keys: string | undefined;
  bodyLength: number;
  reconsumeTimes: number;
  properties: Record<string, string>;
  body: string;
}

/** Properties the Java consumer added on delivery (not in the stored record). */
export const CONSUMER_ADDED = ['MIN_OFFSET', 'MAX_OFFSET', 'CONSUME_START_TIME'];

function parseJavaMap(s: string): Record<string, string> {
  const inner = s.trim().replace(/^\{/, '').replace(/\}$/, '');
  const out: Record<string, string> = {};
  if (!inner) return out;
  for (const part of inner.split(', ')) {
    const eq = part.indexOf('=');
    out[part.substring(0, eq)] = part.substring(eq + 1);
  }
  return out;
}

/** All java-view/expected-<topic>.txt of store-4.9.8, keyed by `${topic}/${msgId}`. */
export function loadJavaView(): Map<string, ExpectedMessage> {
  const dir = goldenPath('store-4.9.8', 'java-view');
  const out = new Map<string, ExpectedMessage>();
  const byId = new Map<string, ExpectedMessage[]>();
  for (const file of fs.readdirSync(dir).filter((f) => /^expected-(?!topicStatus).*\.txt$/.test(f)).sort()) {
    const lines = fs.readFileSync(`${dir}/${file}`, 'utf8').split('\n');
    for (const line of lines) {
      if (line.startsWith('RECV ')) {
        const [, topic, queueId, queueOffset, msgId, tags, keys, bodyLength, reconsumeTimes] = line.split(' ');
        const e: ExpectedMessage = {
          topic, queueId: Number(queueId), queueOffset: Number(queueOffset), msgId,
          tags: tags === '-' ? undefined : tags, keys: keys === '-' ? undefined : keys,
          bodyLength: Number(bodyLength), reconsumeTimes: Number(reconsumeTimes), properties: {}, body: '',
        };
        out.set(`${topic}/${msgId}`, e);
        byId.set(msgId, [...(byId.get(msgId) ?? []), e]);
      }
    }
    for (const line of lines) {
      const m = /^(PROPS|BODY) (\S+) (.*)$/s.exec(line);
      if (!m) continue;
      for (const e of byId.get(m[2]) ?? []) {
        if (m[1] === 'PROPS') e.properties = parseJavaMap(m[3]);
        else e.body = m[3];
      }
    }
  }
  return out;
}

export function readCommitLog(): Buffer {
  return fs.readFileSync(goldenPath('store-4.9.8', 'store', 'commitlog', '00000000000000000000'));
}

export interface CapturedPull {
  scenario: string;
  file: string;
  request: RemotingCommand;
  response: RemotingCommand;
}

/** PULL_MESSAGE (11) requests and their SUCCESS responses with a body, paired by connection and opaque. */
export function capturedPulls(scenario: string): CapturedPull[] {
  return capturedPairs(scenario, 11).filter((p) => p.response.code === 0 && p.response.body);
}

/** Requests with `code` and their responses, paired by connection and opaque. */
export function capturedPairs(scenario: string, code: number): CapturedPull[] {
  const idx = frameIndex(scenario);
  const requests = new Map<string, RemotingCommand>();
  const out: CapturedPull[] = [];
  for (const e of idx) {
    if (e.dir !== 'c2s') continue;
    const cmd = RemotingCommand.decodeFrame(readFrame(scenario, e.file));
    if (cmd.code === code && !cmd.isResponse) requests.set(`${e.file.split('/')[0]}#${cmd.opaque}`, cmd);
  }
  for (const e of idx) {
    if (e.dir !== 's2c') continue;
    const cmd = RemotingCommand.decodeFrame(readFrame(scenario, e.file));
    if (!cmd.isResponse) continue;
    const req = requests.get(`${e.file.split('/')[0]}#${cmd.opaque}`);
    if (req) out.push({ scenario, file: e.file, request: req, response: cmd });
  }
  return out;
}
