import type { SecretsStore } from "../../shared/secrets/index.ts";
import { isSecretName } from "../../shared/secrets/index.ts";
import { UsageError } from "../errors.ts";
import type { AdminIo } from "./admin-io.ts";

const checkName = (name: string) => {
  if (!isSecretName(name))
    throw new UsageError(`"${name}" is not a secret name: postern/<segments of A-Z a-z 0-9 _+=.@->`);
};

/** `postern secrets set`: the value arrives on stdin or at a prompt, never in argv (shell history, `ps`). */
export async function secretsSet(
  store: SecretsStore,
  io: AdminIo,
  name: string,
  readValue: () => Promise<string>,
): Promise<void> {
  checkName(name);
  const value = (await readValue()).replace(/\r?\n$/, "");
  if (value === "") throw new UsageError("no value given (pipe it on stdin, or type it at the prompt)");
  await store.set(name, value);
  io.out(`set ${name}; reference it as secretsmanager:${name}\n`);
}

/** Names and update times only: a value never reaches the terminal. */
export async function secretsList(store: SecretsStore, io: AdminIo, json: boolean): Promise<void> {
  const entries = await store.list();
  if (json) io.out(`${JSON.stringify(entries, null, 2)}\n`);
  else for (const e of entries) io.out(`${e.name}\t${e.updatedAt ?? "-"}\n`);
}

export async function secretsRemove(store: SecretsStore, io: AdminIo, name: string): Promise<boolean> {
  checkName(name);
  const existed = await store.remove(name);
  io.out(existed ? `removed ${name}\n` : `no secret ${name}\n`);
  return existed;
}
