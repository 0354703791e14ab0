import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";

/** Runs git in a directory; null when git is missing or the directory is in no repository. */
export type Git = (cwd: string, args: readonly string[]) => string | null;

const systemGit: Git = (cwd, args) => {
  try {
    return execFileSync("git", [...args], {
      cwd,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {
    return null;
  }
};

/**
 * Why a signing secret may not be written at `path`, or null. A file in a git work tree that git does not ignore
 * is one `git add .` away from the repository's history, where a webhook secret (G16) outlives any rotation: it
 * must go outside the work tree, or somewhere ignored (`.postern/` is). `git check-ignore` exits 1 for a path
 * that is not ignored, which `systemGit` reads as null.
 */
export function secretOutRefusal(path: string, git: Git = systemGit): string | null {
  const file = resolve(path);
  const dir = dirname(file);
  // git runs where the file will be, or in its nearest existing directory: a missing one is made on write.
  let cwd = dir;
  while (!existsSync(cwd) && dirname(cwd) !== cwd) cwd = dirname(cwd);
  const top = git(cwd, ["rev-parse", "--show-toplevel"]);
  if (!top) return null;
  if (git(cwd, ["check-ignore", "--no-index", "-q", file]) !== null) return null;
  return (
    `--secret-out ${path}: ${relative(top, file)} is inside the git work tree ${top} and git does not ignore it, so ` +
    "a commit could carry the secret; write it outside the work tree (e.g. ~/" +
    `${relative(dir, file)}) or under .postern/ (ignored), or add it to .gitignore`
  );
}
