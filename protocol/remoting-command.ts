/**
 * RemotingCommand: the header + body unit of every request and response.
 *
 * Frame payload (after the 4-byte total length): `int32 mark | header | body`, mark = serializeType << 24 | headerLength.
 * flag bit 0 = response, bit 1 = oneway. A response carries its request's opaque and serialize type.
 *
 * @see org.apache.rocketmq.remoting.protocol.RemotingCommand
 */
import { ProtocolError } from './errors';
import { decodeJsonHeader, encodeJsonHeader } from './serializer/json';
import { decodeRocketMQHeader, encodeRocketMQHeader } from './serializer/rocketmq';

export const SerializeType = { JSON: 0, ROCKETMQ: 1 } as const;
export type SerializeType = (typeof SerializeType)[keyof typeof SerializeType];

/** Java's LanguageCode. NODE_JS exists only from 5.x: a 4.9 peer does not know it. */
export const LanguageCode = {
  JAVA: 0, CPP: 1, DOTNET: 2, PYTHON: 3, DELPHI: 4, ERLANG: 5, RUBY: 6, OTHER: 7, HTTP: 8, GO: 9, PHP: 10, OMS: 11,
  RUST: 12, NODE_JS: 13,
} as const;
export type LanguageName = keyof typeof LanguageCode;

const LANGUAGE_BY_CODE: string[] = [];
for (const [name, code] of Object.entries(LanguageCode)) LANGUAGE_BY_CODE[code] = name;

export function languageName(code: number): string {
  return LANGUAGE_BY_CODE[code] ?? 'OTHER';
}
export function languageCode(name: string): number {
  return (LanguageCode as Record<string, number>)[name] ?? LanguageCode.OTHER;
}

export const RPC_TYPE_RESPONSE = 1; // flag bit 0
export const RPC_ONEWAY = 2; // flag bit 1

/** The MQVersion ordinal a 4.9.8 Java client sends (`MQVersion.Version.V4_9_8`). */
export const DEFAULT_VERSION = 409;

export type ExtFields = Record<string, string>;

export interface RemotingCommandInit {
  code: number;
  language?: string;
  version?: number;
  opaque?: number;
  flag?: number;
  remark?: string | null;
  extFields?: ExtFields | null;
  body?: Buffer | null;
  serializeType?: SerializeType;
}

export class RemotingCommand {
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

  /** Encodes the whole frame, length prefix included, as one Buffer. */
  encode(): Buffer {
    const head = this.encodeHeaderFrame();
    if (this.bodyParts) return Buffer.concat([head, ...this.bodyParts], head.length + this.bodyLength);
    if (!this.body || this.body.length === 0) return head;
    return Buffer.concat([head, this.body], head.length + this.body.length);
  }

  /**
   * Encodes the frame's length prefix, mark and header; the body (if any) must be written right after it.
   * Lets a server write a large body (a pull response's stored records) without copying it.
   */
  encodeHeaderFrame(): Buffer {
    const header = this.serializeType === SerializeType.ROCKETMQ ? encodeRocketMQHeader(this) : encodeJsonHeader(this);
    const bodyLength = this.bodyLength;
    const out = Buffer.allocUnsafe(8 + header.length);
    out.writeInt32BE(4 + header.length + bodyLength, 0);
    out.writeInt32BE((this.serializeType << 24) | header.length, 4);
    header.copy(out, 8);
    return out;
  }

  /** Decodes a frame payload (the bytes after the 4-byte total length). The body is a view, not a copy. */
  static decode(payload: Buffer): RemotingCommand {
    if (payload.length < 4) throw new ProtocolError(`frame payload too short: ${payload.length} bytes`);
    const mark = payload.readInt32BE(0);
    const type = (mark >>> 24) & 0xff;
    const headerLength = mark & 0x00ffffff;
    if (headerLength > payload.length - 4) {
      throw new ProtocolError(`header length ${headerLength} exceeds frame payload of ${payload.length - 4} bytes`);
    }
    const header = payload.subarray(4, 4 + headerLength);
    let cmd: RemotingCommand;
    if (type === SerializeType.JSON) cmd = decodeJsonHeader(header);
    else if (type === SerializeType.ROCKETMQ) cmd = decodeRocketMQHeader(header);
    else throw new ProtocolError(`unknown serialize type ${type}`);
    const bodyLength = payload.length - 4 - headerLength;
    cmd.body = bodyLength > 0 ? payload.subarray(4 + headerLength) : null;
    return cmd;
  }

  /** Decodes a whole frame, length prefix included (as recorded in the golden captures). */
  static decodeFrame(frame: Buffer): RemotingCommand {
    if (frame.length < 8) throw new ProtocolError(`frame too short: ${frame.length} bytes`);
    const total = frame.readInt32BE(0);
    if (total !== frame.length - 4) throw new ProtocolError(`frame length ${total} does not match ${frame.length - 4} bytes`);
    return RemotingCommand.decode(frame.subarray(4));
  }
}
