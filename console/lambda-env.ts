/** Set by the PosternConsole construct (infra/constructs/console.ts), read by console/lambda.ts. */
export const CONSOLE_ENV = {
  userPoolId: "POSTERN_CONSOLE_USER_POOL_ID",
  /** An SSM parameter holding the app client id (the client names the function URL: a direct reference would loop). */
  clientIdParameter: "POSTERN_CONSOLE_CLIENT_ID_PARAMETER",
  authDomain: "POSTERN_CONSOLE_AUTH_DOMAIN",
  /**
   * An SSM parameter holding the console's origin, its function URL (the URL belongs to the function, so the
   * function's own environment cannot name it: a direct reference would loop). Requests are answered only there.
   */
  originParameter: "POSTERN_CONSOLE_ORIGIN_PARAMETER",
} as const;
