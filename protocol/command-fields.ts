/**
 * The plain facts of a remoting command that the codec and the serializers share: serialize types, language
 * codes, flag bits, and the fields of a header. Imports nothing, so protocol/codec.ts, the serializers and
 * protocol/remoting-command.ts form no cycle.
 *
 * @see org.apache.rocketmq.remoting.protocol.RemotingCommand
 */

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

/** What the codec reads of a command (RemotingCommand is one). */
export interface CommandFields {
  readonly code: number;
  readonly language: string;
  readonly version: number;
  readonly opaque: number;
  readonly flag: number;
  readonly remark: string | null;
  readonly extFields: ExtFields | null;
  readonly body: Buffer | null;
  readonly bodyParts: readonly Buffer[] | null;
  readonly serializeType: SerializeType;
}

/**
 * What a layer below the command's author decides: the transport's opaque and flag, the client's language and
 * serialize type. Given to `encode` instead of being written into the command; a field left out is the command's.
 */
export interface EncodeOptions {
  opaque?: number;
  flag?: number;
  language?: string;
  serializeType?: SerializeType;
}
