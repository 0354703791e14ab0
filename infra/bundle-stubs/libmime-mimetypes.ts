import { unreachable } from "./unreachable.ts";

// libmime's lib/mimetypes.js, the extension <-> MIME type tables behind libmime.detectExtension and
// libmime.detectMimeType (68 KB of the verify bundle). mailauth, libmime's only user in verify, calls neither.
const WHY = "mailauth never calls libmime.detectExtension or detectMimeType";

const table = (name: string) =>
  new Proxy(
    {},
    {
      get: (_target, key) => unreachable(`libmime mimetypes.${name}[${String(key)}]`, WHY),
      has: (_target, key) => unreachable(`libmime mimetypes.${name} has ${String(key)}`, WHY),
      // libmime asks `hasOwnProperty.call(mimetypes.list, type)` first
      getOwnPropertyDescriptor: (_target, key) =>
        unreachable(`libmime mimetypes.${name} own ${String(key)}`, WHY),
      ownKeys: () => unreachable(`libmime mimetypes.${name} keys`, WHY),
    },
  );

export const list = table("list");
export const extensions = table("extensions");
