import { unreachable } from "./unreachable.ts";

// libmime (required by mailauth) converts ISO-2022-JP / EUC-JP with encoding-japanese (~230 KB of the verify
// bundle). See VERIFY_STUBS in infra/bundling.ts for why the verify path never needs it.
export function convert(_data: unknown, options: { from?: unknown } | undefined): never {
  return unreachable(
    `encoding-japanese.convert(from ${JSON.stringify(options?.from)})`,
    "verify never decodes a Japanese charset through libmime",
  );
}
