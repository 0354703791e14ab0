import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, Duration, Stack } from "aws-cdk-lib";
import { describe, expect, it } from "vitest";
import { copyCommands, shippedConfigPath } from "../../infra/bundling.ts";
import { receiptRuleName } from "../../infra/constructs/mail-intake.ts";
import { bedrockResources, secretResources } from "../../infra/constructs/model-access.ts";
import { PipelineFunction } from "../../infra/constructs/pipeline-function.ts";
import { WorkQueue } from "../../infra/constructs/work-queue.ts";
import { ROOT } from "./synth.ts";

const flat = (xs: string[]) => xs.map((x) => Stack.of(new Stack(new App(), "S")).resolve(x));
const stack = () => new Stack(new App({ context: { "aws:cdk:bundling-stacks": [] } }), "S");

describe("Bedrock and secret ARNs", () => {
  it("a foundation model id is granted in its region only", () => {
    expect(bedrockResources("amazon.nova-pro-v1:0", "eu-west-1", "1")).toHaveLength(1);
    expect(JSON.stringify(flat(bedrockResources("amazon.nova-pro-v1:0", "eu-west-1", "1")))).toContain(
      ":bedrock:eu-west-1::foundation-model/amazon.nova-pro-v1:0",
    );
  });

  it("an inference profile id (us./eu./global.) is granted as the profile plus its one model in any region", () => {
    for (const prefix of ["us", "eu", "apac", "global"]) {
      const text = JSON.stringify(
        flat(bedrockResources(`${prefix}.anthropic.claude-x-v1:0`, "us-east-1", "123")),
      );
      expect(text).toContain(`:bedrock:us-east-1:123:inference-profile/${prefix}.anthropic.claude-x-v1:0`);
      expect(text).toContain(":bedrock:*::foundation-model/anthropic.claude-x-v1:0");
    }
  });

  it("an ARN is taken as is", () => {
    const arn = "arn:aws:bedrock:us-east-1:123:application-inference-profile/abc";
    expect(bedrockResources(arn, "eu-west-1", "1")).toEqual([arn]);
  });

  it("secret references become the narrowest ARNs that match them", () => {
    const sm = JSON.stringify(flat(secretResources("secretsmanager:postern/a", "eu-west-1", "123").secrets));
    expect(sm).toContain(":secretsmanager:eu-west-1:123:secret:postern/a-??????");
    const ssm = JSON.stringify(flat(secretResources("ssm:/postern/key", "eu-west-1", "123").parameters));
    expect(ssm).toContain(":ssm:eu-west-1:123:parameter/postern/key");
    expect(ssm).not.toContain("parameter//");
  });
});

describe("construct guards", () => {
  it("the event source bound is 2-1000, and a reservation is opt-in (and only with a bound)", () => {
    const s = stack();
    const source = new WorkQueue(s, "Q", { consumerTimeout: Duration.seconds(30) });
    const props = {
      entry: join(ROOT, "functions/verify/handler.ts"),
      projectRoot: ROOT,
      source,
      timeout: Duration.seconds(30),
      environment: {},
      files: { configFile: join(ROOT, "postern.config.example.json"), configDir: ROOT, scripts: [] },
    };
    expect(() => new PipelineFunction(s, "F", { ...props, maxConcurrency: 1 })).toThrow(/2-1000/);
    expect(() => new PipelineFunction(s, "G", { ...props, maxConcurrency: 2 })).not.toThrow();
    expect(() => new PipelineFunction(s, "H", { ...props, reserveConcurrency: true })).toThrow(
      /needs maxConcurrency/,
    );
    const reserved = new PipelineFunction(s, "R", { ...props, maxConcurrency: 4, reserveConcurrency: true });
    const bounded = new PipelineFunction(s, "B", { ...props, maxConcurrency: 4 });
    const prop = (f: PipelineFunction) =>
      (f.fn.node.defaultChild as { reservedConcurrentExecutions?: number }).reservedConcurrentExecutions;
    expect([prop(reserved), prop(bounded)]).toEqual([4, undefined]);
  });

  it("a DLQ needs a receive count of at least 1", () => {
    expect(
      () => new WorkQueue(stack(), "Q", { consumerTimeout: Duration.seconds(1), maxReceiveCount: 0 }),
    ).toThrow(/maxReceiveCount must be an integer 1-1000/);
  });

  it("receipt rule names stay within SES's 64 characters", () => {
    expect(receiptRuleName("agents.example.com")).toBe("postern-agents.example.com");
    const long = `${"a".repeat(60)}.example.com`;
    expect(receiptRuleName(long)).toMatch(/^postern-[0-9a-f]{24}$/);
    expect(receiptRuleName(long)).toBe(receiptRuleName(long));
  });
});

describe("shipping the config into the bundle", () => {
  it("copies the config and its scripts, paths with spaces and quotes included", () => {
    const src = mkdtempSync(join(tmpdir(), "postern it's here "));
    mkdirSync(join(src, "scripts"));
    writeFileSync(join(src, "postern.config.json"), "{}");
    writeFileSync(join(src, "scripts", "a b.json"), "[1]");
    const out = mkdtempSync(join(tmpdir(), "postern-out "));
    const files = {
      configFile: join(src, "postern.config.json"),
      configDir: src,
      scripts: ["scripts/a b.json"],
    };
    for (const cmd of copyCommands(files, out)) execFileSync("sh", ["-c", cmd]);
    expect(readFileSync(join(out, "postern.config.json"), "utf8")).toBe("{}");
    expect(readFileSync(join(out, "scripts", "a b.json"), "utf8")).toBe("[1]");
    expect(shippedConfigPath(files)).toBe("/var/task/postern.config.json");
  });
});
