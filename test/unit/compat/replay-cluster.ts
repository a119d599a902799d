/**
 * A scripted name server and broker that answer our client with responses captured from real Java 4.9.8 / 5.3.3
 * servers (test/helpers/golden.ts), and record every request our client sends. A captured response is replayed
 * with its code, remark, extFields and body as recorded; only the opaque (and serialize type) follow our request,
 * which the transport does for every response. Route bodies keep their topics and queue counts; the broker
 * address inside them is rewritten to the scripted broker's.
 */
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RemotingServer } from '../../../lib/transport';
import type { RemotingContext, RemotingProcessor } from '../../../lib/transport/processor';
import { frameIndex, type GoldenFrameEntry, readFrame } from '../../helpers/golden';

/** A captured frame, decoded. */
export function golden(scenario: string, file: string): RemotingCommand {
  return RemotingCommand.decodeFrame(readFrame(scenario, file));
}

function connectionOf(e: GoldenFrameEntry): string {
  return e.file.split('/')[0];
}

/** The requests of `code` the Java side sent in a scenario (c2s, response flag clear), in capture order. */
export function javaRequests(scenario: string, code: number, dir: 'c2s' | 's2c' = 'c2s'): Array<{ file: string; cmd: RemotingCommand }> {
  return frameIndex(scenario)
    .filter((e) => e.dir === dir && e.header.code === code && ((e.header.flag as number) & 1) === 0)
    .map((e) => ({ file: e.file, cmd: golden(scenario, e.file) }));
}

/** The captured response to the captured request `requestFile` (same connection, other direction, same opaque). */
export function javaResponseTo(scenario: string, requestFile: string): RemotingCommand {
  const r = findJavaResponse(scenario, requestFile);
  if (!r) throw new Error(`no response to ${requestFile} in ${scenario}`);
  return r;
}

function findJavaResponse(scenario: string, requestFile: string): RemotingCommand | null {
  const index = frameIndex(scenario);
  const req = index.find((e) => e.file === requestFile);
  if (!req) throw new Error(`no frame ${requestFile} in ${scenario}`);
  const resp = index.find(
    (e) => connectionOf(e) === connectionOf(req) && e.dir !== req.dir && ((e.header.flag as number) & 1) === 1 && e.header.opaque === req.header.opaque,
  );
  return resp ? golden(scenario, resp.file) : null;
}

/** All captured (request, response) pairs for a request code (requests still unanswered when the capture ended are left out). */
export function javaExchanges(scenario: string, code: number): Array<{ file: string; request: RemotingCommand; response: RemotingCommand }> {
  const out: Array<{ file: string; request: RemotingCommand; response: RemotingCommand }> = [];
  for (const { file, cmd } of javaRequests(scenario, code)) {
    if ((cmd.flag & 2) !== 0) continue; // oneway: no answer
    const response = findJavaResponse(scenario, file);
    if (response) out.push({ file, request: cmd, response });
  }
  return out;
}

/** `captured` as the answer to `request`: the captured code, remark, extFields and body; our request's opaque. */
export function replayAs(request: RemotingCommand, captured: RemotingCommand, body: Buffer | null = captured.body): RemotingCommand {
  const resp = RemotingCommand.createResponse(request, captured.code, captured.remark ?? null, captured.extFields ? { ...captured.extFields } : null, body);
  resp.version = captured.version;
  return resp;
}

export interface ReplayServer {
  server: RemotingServer;
  addr: string;
  requests: RemotingCommand[];
  /** Sets the processor of a code (requests are recorded either way). */
  on(code: number, processor: RemotingProcessor): void;
  /** Answers every request of `code` with the captured frame. */
  replay(code: number, captured: RemotingCommand): void;
  /** Requests of a code received so far. */
  of(code: number): RemotingCommand[];
}

async function replayServer(): Promise<ReplayServer> {
  const server = new RemotingServer({ bindAddress: '127.0.0.1', listenPort: 0 });
  const requests: RemotingCommand[] = [];
  const table = new Map<number, RemotingProcessor>();
  server.registerDefaultProcessor((request: RemotingCommand, ctx: RemotingContext) => {
    requests.push(request);
    const p = table.get(request.code);
    if (p) return p(request, ctx);
    return RemotingCommand.createResponse(request, ResponseCode.REQUEST_CODE_NOT_SUPPORTED, ` request type ${request.code} not supported`);
  });
  const port = await server.listen();
  return {
    server,
    addr: `127.0.0.1:${port}`,
    requests,
    on: (code, processor) => table.set(code, processor),
    replay: (code, captured) => table.set(code, (r) => replayAs(r, captured)),
    of: (code) => requests.filter((r) => r.code === code),
  };
}

export interface ReplayCluster {
  namesrv: ReplayServer;
  broker: ReplayServer;
  namesrvAddr: string;
  /** Serves the captured route body of `topic` from `scenario` (broker address rewritten), or TOPIC_NOT_EXIST as captured. */
  route(topic: string, scenario: string, capturedTopic?: string): void;
  stop(): Promise<void>;
}

/** The captured GET_ROUTEINFO_BY_TOPIC answer for `topic` in `scenario` (the first SUCCESS, else the first answer). */
export function capturedRoute(scenario: string, topic: string): RemotingCommand {
  const answers = javaExchanges(scenario, RequestCode.GET_ROUTEINFO_BY_TOPIC).filter((x) => x.request.extFields?.topic === topic);
  if (answers.length === 0) throw new Error(`no route answer for ${topic} in ${scenario}`);
  return (answers.find((x) => x.response.code === ResponseCode.SUCCESS) ?? answers[0]).response;
}

/**
 * Starts a name server and a broker. The name server answers routes registered with `route()` and
 * TOPIC_NOT_EXIST (the captured 4.9.8 answer) otherwise; the broker answers HEART_BEAT and UNREGISTER_CLIENT
 * with the captured SUCCESS of `scenario` unless a test overrides them.
 */
export async function startReplayCluster(scenario = '03-consume'): Promise<ReplayCluster> {
  const namesrv = await replayServer();
  const broker = await replayServer();
  const routes = new Map<string, RemotingCommand>();
  const notExist = javaExchanges('02-produce', RequestCode.GET_ROUTEINFO_BY_TOPIC).find((x) => x.response.code === ResponseCode.TOPIC_NOT_EXIST)!.response;
  namesrv.on(RequestCode.GET_ROUTEINFO_BY_TOPIC, (r) => {
    const captured = routes.get(r.extFields!.topic);
    if (!captured) {
      const remark = `No topic route info in name server for the topic: ${r.extFields!.topic}\n${(notExist.remark ?? '').split('\n')[1] ?? ''}`;
      return RemotingCommand.createResponse(r, ResponseCode.TOPIC_NOT_EXIST, remark);
    }
    const body = captured.body ? Buffer.from(captured.body.toString('utf8').replace(/127\.0\.0\.1:(20911|20931)/g, broker.addr)) : null;
    return replayAs(r, captured, body);
  });
  const hb = javaExchanges(scenario, RequestCode.HEART_BEAT)[0];
  if (hb) broker.replay(RequestCode.HEART_BEAT, hb.response);
  broker.on(RequestCode.UNREGISTER_CLIENT, (r) => RemotingCommand.createResponse(r, ResponseCode.SUCCESS));
  return {
    namesrv,
    broker,
    namesrvAddr: namesrv.addr,
    route(topic, fromScenario, capturedTopic = topic) {
      const captured = capturedRoute(fromScenario, capturedTopic);
      routes.set(topic, captured);
    },
    async stop() {
      await Promise.all([namesrv.server.shutdown(), broker.server.shutdown()]);
    },
  };
}
