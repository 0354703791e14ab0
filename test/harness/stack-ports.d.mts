/** `postern start`'s default ports, which no test may listen on or connect to (see stack-ports-guard.mjs). */
export declare const STACK_PORTS: readonly number[];
