/**
 * Ports for the three services only the doctor calls (Cognito user pools, EventBridge Scheduler, Service Quotas):
 * the one call each check makes, typed from the service's API reference (the shapes the SDK's `...CommandOutput`
 * carries), so a test hands in a recorded answer; the real adapters are in ports.ts. Their SDK clients are CLI
 * dependencies only: no function bundles them.
 */

/**
 * Cognito user pools. DescribeUserPool: https://docs.aws.amazon.com/cognito-user-identity-pools/latest/APIReference/API_DescribeUserPool.html;
 * ListUsers: https://docs.aws.amazon.com/cognito-user-identity-pools/latest/APIReference/API_ListUsers.html (UserType).
 */
export interface CognitoPort {
  describeUserPool(input: { UserPoolId: string }): Promise<{
    UserPool?: {
      Id?: string;
      Name?: string;
      /** "OFF" | "ON" (required for every user) | "OPTIONAL". */
      MfaConfiguration?: "OFF" | "ON" | "OPTIONAL";
      EstimatedNumberOfUsers?: number;
    };
  }>;
  listUsers(input: { UserPoolId: string; Limit?: number; PaginationToken?: string }): Promise<{
    Users?: {
      Username?: string;
      Enabled?: boolean;
      UserStatus?:
        | "UNCONFIRMED"
        | "CONFIRMED"
        | "ARCHIVED"
        | "COMPROMISED"
        | "UNKNOWN"
        | "RESET_REQUIRED"
        | "FORCE_CHANGE_PASSWORD"
        | "EXTERNAL_PROVIDER";
    }[];
    PaginationToken?: string;
  }>;
}

/** EventBridge Scheduler GetSchedule: https://docs.aws.amazon.com/scheduler/latest/APIReference/API_GetSchedule.html */
export interface SchedulerPort {
  getSchedule(input: { Name: string; GroupName?: string }): Promise<{
    Name?: string;
    GroupName?: string;
    State?: "ENABLED" | "DISABLED";
    ScheduleExpression?: string;
    Target?: { Arn?: string; RoleArn?: string };
  }>;
}

/**
 * Service Quotas ListServiceQuotas (the account's applied values): https://docs.aws.amazon.com/servicequotas/2019-06-24/apireference/API_ListServiceQuotas.html,
 * ServiceQuota: https://docs.aws.amazon.com/servicequotas/2019-06-24/apireference/API_ServiceQuota.html
 */
export interface QuotasPort {
  listServiceQuotas(input: { ServiceCode: string; NextToken?: string; MaxResults?: number }): Promise<{
    Quotas?: {
      QuotaName?: string;
      QuotaCode?: string;
      Value?: number;
      Adjustable?: boolean;
    }[];
    NextToken?: string;
  }>;
}
