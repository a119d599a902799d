/**
 * One request = one unit: its code, its request and response header codecs, and `parse`, which turns the
 * response into the value the caller wants or throws (a failure code is an MQBrokerError). The client builds the
 * command with `request(values, body)` and reads the answer with `parse`; a server decodes the request header
 * with `requestHeader` and answers with `responseHeader`. See protocol/requests/README.md.
 *
 * Modelled on KafkaJS src/protocol/requests/<api>/ (`{ apiKey, encode }` + `{ decode, parse }`).
 */
import { ResponseCode } from '../code/response-code';
import { createBrokerError } from '../code/response-code-table';
import { ProtocolError } from '../errors';
import type { ExtFields } from '../command-fields';
import { RemotingCommand } from '../remoting-command';

/** A header codec seen through its values (every `HeaderCodec<S>` of header-schema.ts is one). */
export interface HeaderCodecOf<V> {
  readonly name: string;
  encode(values: V): ExtFields;
  decode(extFields: ExtFields | null | undefined): V;
}

/** The header of a request or response that has none (its values are `void`; the command's extFields stay null). */
export const NO_HEADER: HeaderCodecOf<void> = {
  name: 'none',
  encode: () => ({}),
  decode: () => undefined,
};

export interface RequestType<Req, Res, Out> {
  readonly code: number;
  /** The RequestCode name. */
  readonly name: string;
  readonly requestHeader: HeaderCodecOf<Req>;
  readonly responseHeader: HeaderCodecOf<Res>;
  /** The request command for these header values (and body). */
  request(values: Req, body?: Buffer | null): RemotingCommand;
  /** The response to what the caller wants; a failure code, or a malformed response header, throws MQBrokerError. */
  parse(response: RemotingCommand, addr?: string): Out;
}

export interface RequestSpec<Req, Res, Out> {
  code: number;
  name: string;
  requestHeader?: HeaderCodecOf<Req>;
  responseHeader?: HeaderCodecOf<Res>;
  /** Default: SUCCESS or throw, then the decoded response header. */
  parse?: (response: RemotingCommand, addr: string | undefined, self: RequestType<Req, Res, Out>) => Out;
}

/** Throws the MQBrokerError of a response whose code is not one of `ok` (SUCCESS by default). */
export function expectCode(response: RemotingCommand, addr: string | undefined, ...ok: number[]): void {
  if (ok.length === 0 ? response.code !== ResponseCode.SUCCESS : !ok.includes(response.code)) {
    throw createBrokerError(response.code, response.remark, addr);
  }
}

/** The response header's values through `codec`; a missing or malformed field is an MQBrokerError (cause: the ProtocolError). */
export function decodeResponseHeader<V>(codec: HeaderCodecOf<V>, response: RemotingCommand, addr?: string): V {
  try {
    return codec.decode(response.extFields);
  } catch (err) {
    if (!(err instanceof ProtocolError)) throw err;
    throw createBrokerError(response.code, `malformed response: ${err.message}`, addr, { cause: err });
  }
}

/**
 * A `parse` that answers one field of the response header on SUCCESS (`offset` of GET_MAX_OFFSET...) and throws the
 * MQBrokerError of any other code, or of a malformed header.
 */
export function headerField<V, K extends keyof V>(codec: HeaderCodecOf<V>, key: K): (response: RemotingCommand, addr?: string) => V[K] {
  return (response, addr) => {
    expectCode(response, addr);
    return decodeResponseHeader(codec, response, addr)[key];
  };
}

export function defineRequest<Req = void, Res = void, Out = Res>(spec: RequestSpec<Req, Res, Out>): RequestType<Req, Res, Out> {
  const requestHeader = spec.requestHeader ?? (NO_HEADER as unknown as HeaderCodecOf<Req>);
  const responseHeader = spec.responseHeader ?? (NO_HEADER as unknown as HeaderCodecOf<Res>);
  const hasHeader = requestHeader !== (NO_HEADER as unknown);
  const self: RequestType<Req, Res, Out> = {
    code: spec.code,
    name: spec.name,
    requestHeader,
    responseHeader,
    request(values: Req, body?: Buffer | null): RemotingCommand {
      return new RemotingCommand({ code: spec.code, extFields: hasHeader ? requestHeader.encode(values) : null, body: body ?? null });
    },
    parse: spec.parse
      ? (response, addr) => spec.parse!(response, addr, self)
      : (response, addr) => {
        expectCode(response, addr);
        return decodeResponseHeader(responseHeader, response, addr) as unknown as Out;
      },
  };
  return self;
}
