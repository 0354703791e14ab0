import fc from "fast-check";

// Property tests run with a fixed seed by default, so CI is reproducible; `FC_SEED=<n>` replays a run and
// `FC_SEED=random` explores new cases (a failure prints its seed and path).
const raw = process.env.FC_SEED;
const seed = raw === "random" ? Date.now() ^ (Math.random() * 0x7fffffff) : Number(raw ?? 20261129);
fc.configureGlobal({ seed });
