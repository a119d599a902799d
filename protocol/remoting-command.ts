/**
 * RemotingCommand: the header + body unit of every request and response.
 *
 * Frame payload (after the 4-byte total length): `int32 mark | header | body`, mark = serializeType << 24 | headerLength.
 * flag bit 0 = response, bit 1 = oneway. A response carries its request's opaque and serialize type.
 *
 * @see org.apache.rocketmq.remoting.protocol.RemotingCommand
 */
import {
  type CommandFields, DEFAULT_VERSION, type EncodeOptions, type ExtFields, RPC_ONEWAY, RPC_TYPE_RESPONSE, type RemotingCommandInit,
  SerializeType,
} from './command-fields';
import { decodePayload, encodeFrame, encodeHeaderFrame } from './codec';
import { ProtocolError } from './errors';

export {
  DEFAULT_VERSION, type EncodeOptions, type ExtFields, LanguageCode, type LanguageName, RPC_ONEWAY, RPC_TYPE_RESPONSE,
  type RemotingCommandInit, SerializeType, languageCode, languageName,
} from './command-fields';

export class RemotingCommand implements CommandFields {
  code: number;
  /** The LanguageCode name ("JAVA", "GO", ...). */
  language: string;
  version: number;
  opaque: number;
  flag: number;
  remark: string | null;
  extFields: ExtFields | null;
  body: Buffer | null;
  /**
   * A body gathered from several buffers (a pull response's stored records, not adjacent in memory): when set, the
   * frame's body is these buffers in order and `body` is null. A transport writes them one after another (one
   * writev) without joining them; `encode()` and `joinedBody()` join them.
   */
  bodyParts: readonly Buffer[] | null = null;
  serializeType: SerializeType;

  constructor(init: RemotingCommandInit) {
    this.code = init.code;
    this.language = init.language ?? 'JAVA';
    this.version = init.version ?? DEFAULT_VERSION;
    this.opaque = init.opaque ?? 0;
    this.flag = init.flag ?? 0;
    this.remark = init.remark ?? null;
    this.extFields = init.extFields ?? null;
    this.body = init.body ?? null;
    this.serializeType = init.serializeType ?? SerializeType.JSON;
  }

  static createRequest(code: number, extFields?: ExtFields | null, body?: Buffer | null): RemotingCommand {
    return new RemotingCommand({ code, extFields, body });
  }

  /** A response to `request`: same opaque and serialize type, response flag set. */
  static createResponse(
    request: RemotingCommand,
    code: number,
    remark?: string | null,
    extFields?: ExtFields | null,
    body?: Buffer | null,
  ): RemotingCommand {
    return new RemotingCommand({
      code,
      remark,
      extFields,
      body,
      opaque: request.opaque,
      flag: RPC_TYPE_RESPONSE,
      serializeType: request.serializeType,
      version: request.version,
    });
  }

  get isResponse(): boolean {
    return (this.flag & RPC_TYPE_RESPONSE) !== 0;
  }

  get isOneway(): boolean {
    return (this.flag & RPC_ONEWAY) !== 0;
  }

  markResponse(): this {
    this.flag |= RPC_TYPE_RESPONSE;
    return this;
  }

  markOneway(): this {
    this.flag |= RPC_ONEWAY;
    return this;
  }

  /** Sets a gathered body (see `bodyParts`); an empty list means no body. Returns this. */
  setBodyParts(parts: readonly Buffer[]): this {
    this.body = null;
    this.bodyParts = parts.length > 0 ? parts : null;
    return this;
  }

  /** The body length in bytes, whether one buffer or gathered parts. */
  get bodyLength(): number {
    if (this.bodyParts) {
      let n = 0;
      for (const p of this.bodyParts) n += p.length;
      return n;
    }
    return this.body ? this.body.length : 0;
  }

  /** The body as one Buffer: `body`, or the parts joined (a copy); null when there is none. */
  joinedBody(): Buffer | null {
    if (this.bodyParts) return Buffer.concat(this.bodyParts as Buffer[], this.bodyLength);
    return this.body;
  }

  /**
   * Encodes the whole frame, length prefix included, as one Buffer. `options` overrides the opaque, flag, language
   * or serialize type for this encoding only; the command is not changed.
   */
  encode(options?: EncodeOptions): Buffer {
    return encodeFrame(this, options);
  }

  /**
   * Encodes the frame's length prefix, mark and header; the body (if any) must be written right after it.
   * Lets a server write a large body (a pull response's stored records) without copying it.
   */
  encodeHeaderFrame(options?: EncodeOptions): Buffer {
    return encodeHeaderFrame(this, options);
  }

  /** Decodes a frame payload (the bytes after the 4-byte total length). The body is a view, not a copy. */
  static decode(payload: Buffer): RemotingCommand {
    return new RemotingCommand(decodePayload(payload));
  }

  /** Decodes a whole frame, length prefix included (as recorded in the golden captures). */
  static decodeFrame(frame: Buffer): RemotingCommand {
    if (frame.length < 8) throw new ProtocolError(`frame too short: ${frame.length} bytes`);
    const total = frame.readInt32BE(0);
    if (total !== frame.length - 4) throw new ProtocolError(`frame length ${total} does not match ${frame.length - 4} bytes`);
    return RemotingCommand.decode(frame.subarray(4));
  }
}
