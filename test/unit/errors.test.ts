import { describe, expect, it } from "vitest";
import { UsageError } from "../../cli/errors.ts";
import { ConfigError } from "../../shared/config/load.ts";
import { PosternError } from "../../shared/errors.ts";
import { ScriptError } from "../../shared/model/script.ts";
import { defineTool } from "../../shared/tool-framework/tool.ts";

describe("PosternError: one base class, a stable code on every throw", () => {
  it("knows its own, subclasses included, and nothing else", () => {
    expect(PosternError.isInstance(new PosternError("invariant-broken", "x"))).toBe(true);
    expect(PosternError.isInstance(new ConfigError("postern.config.json", ["domains: required"]))).toBe(true);
    expect(PosternError.isInstance(new ScriptError("s.json", ["turns: required"]))).toBe(true);
    expect(PosternError.isInstance(new UsageError("--json and --csv"))).toBe(true);
    expect(PosternError.isInstance(new Error("x"))).toBe(false);
    expect(PosternError.isInstance({ code: "misconfigured", message: "x" })).toBe(false);
    expect(PosternError.isInstance(null)).toBe(false);
  });

  it("recognises an error made by another copy of the module (a bundle, a loaded tool) by its marker", () => {
    const foreign = Object.assign(new Error("from another copy"), { [Symbol.for("postern.error")]: true });
    expect(PosternError.isInstance(foreign)).toBe(true);
  });

  it("carries its code, its cause, and the retry rule written once", () => {
    const cause = new Error("throttled");
    const e = new PosternError("dependency-failed", "SES returned no MessageId", { cause });
    expect(e).toMatchObject({ code: "dependency-failed", message: "SES returned no MessageId", cause });
    expect(e.isRetryable).toBe(true);
    expect(new PosternError("record-missing", "x").isRetryable).toBe(true);
    expect(new PosternError("misconfigured", "x").isRetryable).toBe(false);
    expect(new PosternError("definition-invalid", "x").isRetryable).toBe(false);
  });

  it("keeps the name and message a log or the CLI printed before (no behaviour change)", () => {
    const e = new PosternError("misconfigured", "missing environment variable X");
    expect(e.name).toBe("Error");
    expect(`${e}`).toBe("Error: missing environment variable X");
    expect(new ConfigError("c.json", ["a"]).name).toBe("ConfigError");
  });

  it("is what the code throws for a definition that breaks the rules (a tool with no egress class, G13)", () => {
    let thrown: unknown;
    try {
      defineTool({ name: "bad_tool", description: "d", summary: "s", input: undefined as never } as never);
    } catch (err) {
      thrown = err;
    }
    expect(PosternError.isInstance(thrown) && thrown.code).toBe("definition-invalid");
  });
});
