/** The work tree's postern.config.json, postern.deploy.json and .postern: no test may touch them (work-tree-guard.mjs enforces it). */
export declare const USER_PATHS: readonly string[];
