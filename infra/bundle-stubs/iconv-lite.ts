import { unreachable } from "./unreachable.ts";

// libmime (required by mailauth) decodes charsets with iconv-lite; its encoding tables are ~480 KB of the verify
// bundle. See VERIFY_STUBS in infra/bundling.ts for why the verify path never needs them.
const WHY = "verify never decodes a non-UTF-8 charset through libmime";

export function decode(_buf: unknown, charset: string): never {
  return unreachable(`iconv-lite.decode(${JSON.stringify(charset)})`, WHY);
}

export function encode(_str: unknown, charset: string): never {
  return unreachable(`iconv-lite.encode(${JSON.stringify(charset)})`, WHY);
}
