import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { secretOutRefusal } from "../../../cli/commands/secret-out.ts";

// Finding 12 of issue 31 item 7: the docs wrote `--secret-out crm.secret` in the repository, where nothing
// ignored it. A real git repository, not a stand-in for git's ignore rules.
describe("--secret-out", () => {
  const repo = mkdtempSync(join(tmpdir(), "postern-secret-"));
  execFileSync("git", ["init", "-q", repo]);
  writeFileSync(join(repo, ".gitignore"), ".postern/\n");
  mkdirSync(join(repo, "hooks"));

  it("is refused inside a work tree where git does not ignore it, naming where to write it", () => {
    const refused = secretOutRefusal(join(repo, "hooks", "crm.secret"));
    expect(refused).toContain("hooks/crm.secret is inside the git work tree");
    expect(refused).toContain("write it outside the work tree (e.g. ~/crm.secret) or under .postern/");
    // A directory that does not exist yet (made on write) is judged where it will be.
    expect(secretOutRefusal(join(repo, "new", "dir", "crm.secret"))).toContain(
      "new/dir/crm.secret is inside",
    );
    expect(secretOutRefusal(join(repo, ".postern", "new", "crm.secret"))).toBeNull();
  });

  it("is allowed where git ignores it, and outside any work tree", () => {
    expect(secretOutRefusal(join(repo, ".postern", "crm.secret"))).toBeNull();
    expect(secretOutRefusal(join(mkdtempSync(join(tmpdir(), "postern-nogit-")), "crm.secret"))).toBeNull();
  });
});
