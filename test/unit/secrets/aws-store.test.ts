import { describe, expect, it } from "vitest";
import { awsSecretsStore } from "../../../shared/secrets/index.ts";

// A webhook endpoint removed (its secret force-deleted) and added again at once: Secrets Manager finishes a forced
// delete in the background and refuses CreateSecret of the name until then.
const scheduled = Object.assign(
  new Error(
    "You can't create this secret because a secret with this name is already scheduled for deletion.",
  ),
  { name: "InvalidRequestException" },
);
const missing = Object.assign(new Error("not found"), { name: "ResourceNotFoundException" });

function client(failures: readonly (Error | undefined)[], out: object = {}) {
  const calls: string[] = [];
  let i = 0;
  return {
    calls,
    send: async (command: { constructor: { name: string } }) => {
      calls.push(command.constructor.name);
      const f = failures[i++];
      if (f) throw f;
      return out;
    },
  };
}

describe("awsSecretsStore", () => {
  it("set puts a value; a missing secret is created, waiting out a forced delete in progress", async () => {
    const c = client([missing, scheduled, scheduled]);
    const waits: number[] = [];
    await awsSecretsStore({ client: c as never, sleep: async (ms) => void waits.push(ms) }).set(
      "postern/webhooks/crm",
      "s",
    );
    expect(c.calls).toEqual([
      "PutSecretValueCommand",
      "CreateSecretCommand",
      "CreateSecretCommand",
      "CreateSecretCommand",
    ]);
    expect(waits).toEqual([500, 1000]);
  });

  it("gives up after the last wait, and rethrows any other refusal at once", async () => {
    const always = client([missing, ...Array(6).fill(scheduled)]);
    await expect(
      awsSecretsStore({ client: always as never, sleep: async () => undefined }).set("postern/x", "s"),
    ).rejects.toThrow(/scheduled for deletion/);
    const other = Object.assign(new Error("denied"), { name: "AccessDeniedException" });
    const once = client([other]);
    await expect(awsSecretsStore({ client: once as never }).set("postern/x", "s")).rejects.toBe(other);
    expect(once.calls).toHaveLength(1);
  });

  it("get: not found is null, the SecretString otherwise; remove: whether it existed", async () => {
    expect(await awsSecretsStore({ client: client([missing]) as never }).get("postern/x")).toBeNull();
    expect(
      await awsSecretsStore({ client: client([], { SecretString: "v" }) as never }).get("postern/x"),
    ).toBe("v");
    expect(await awsSecretsStore({ client: client([missing]) as never }).remove("postern/x")).toBe(false);
    expect(await awsSecretsStore({ client: client([]) as never }).remove("postern/x")).toBe(true);
  });
});
