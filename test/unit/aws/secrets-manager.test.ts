import { describe, expect, it } from "vitest";
import { CREATE_RETRY_MS, secretStrings } from "../../../shared/aws/secrets-manager.ts";

// A webhook endpoint removed (its secret force-deleted) and added again at once: Secrets Manager finishes a forced
// delete in the background and refuses CreateSecret of the name until then.
const scheduled = Object.assign(
  new Error(
    "You can't create this secret because a secret with this name is already scheduled for deletion.",
  ),
  { name: "InvalidRequestException" },
);

function client(failures: readonly Error[]) {
  const calls: string[] = [];
  let i = 0;
  return {
    calls,
    send: async (command: { constructor: { name: string } }) => {
      calls.push(command.constructor.name);
      const f = failures[i++];
      if (f) throw f;
      return {};
    },
  };
}

describe("secretStrings.create", () => {
  it("waits out a forced delete still in progress, backing off, then creates", async () => {
    const c = client([scheduled, scheduled]);
    const waits: number[] = [];
    await secretStrings(c as never, { sleep: async (ms) => void waits.push(ms) }).create(
      "postern/webhooks/crm",
      "s",
    );
    expect(c.calls).toEqual(["CreateSecretCommand", "CreateSecretCommand", "CreateSecretCommand"]);
    expect(waits).toEqual(CREATE_RETRY_MS.slice(0, 2));
  });

  it("gives up after the last wait, and rethrows any other refusal at once", async () => {
    const waits: number[] = [];
    const always = client(Array(CREATE_RETRY_MS.length + 1).fill(scheduled));
    await expect(
      secretStrings(always as never, { sleep: async (ms) => void waits.push(ms) }).create("n", "s"),
    ).rejects.toThrow(/scheduled for deletion/);
    expect(waits).toEqual([...CREATE_RETRY_MS]);
    const other = Object.assign(new Error("name already exists"), { name: "ResourceExistsException" });
    const once = client([other]);
    await expect(
      secretStrings(once as never, { sleep: async () => undefined }).create("n", "s"),
    ).rejects.toBe(other);
    expect(once.calls).toHaveLength(1);
  });
});
