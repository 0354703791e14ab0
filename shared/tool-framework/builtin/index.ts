import type { DuckDuckGoOptions } from "../../net/index.ts";
import type { Tool } from "../tool.ts";
import { type CreateFileOptions, makeCreateFileTool } from "./create-file.ts";
import { makeReadAttachmentTool, type ReadAttachmentOptions } from "./read-attachment.ts";
import { makeReadEmailTool } from "./read-email.ts";
import { recordFactTool } from "./record-fact.ts";
import { makeSearchEmailsTool } from "./search-emails.ts";
import { sendEmailTool } from "./send-email.ts";
import { makeWebFetchTool, type WebFetchOptions } from "./web-fetch.ts";
import { makeWebSearchTool } from "./web-search.ts";

export interface BuiltinToolDeps {
  /** web_fetch limits (and, in tests only, a resolver and address policy); web_search fetches with the same. */
  readonly web?: WebFetchOptions;
  /** web_search's endpoint (tests serve a stored page locally). */
  readonly search?: Pick<DuckDuckGoOptions, "endpoint">;
  readonly readAttachment?: ReadAttachmentOptions;
  readonly createFile?: CreateFileOptions;
}

/** Every built-in tool. Which ones an agent may use is decided by its toolkits (G11), not here. */
export function builtinTools(deps: BuiltinToolDeps = {}): Tool[] {
  const { maxChars: _maxChars, ...fetchOpts } = deps.web ?? {};
  return [
    sendEmailTool,
    makeSearchEmailsTool(),
    makeReadAttachmentTool(deps.readAttachment),
    makeReadEmailTool(),
    makeCreateFileTool(deps.createFile),
    makeWebFetchTool(deps.web),
    makeWebSearchTool({ ...deps.search, fetch: fetchOpts }),
    recordFactTool,
  ];
}
