/**
 * Example operator tools: an order lookup scoped to the verified sender, and a refund that needs an approver.
 * Copy this file to connect your own order system: replace `OrderBackend` with calls to your API.
 *
 * - `lookup_order` shows how a tool uses the proven sender (G17): it answers only for orders that belong to the
 *   address DKIM proved, whatever order number the model (or a mail it read) asks for.
 * - `issue_refund` moves money, so it is `confirm` (G14): the model can only propose it; an approver confirms by
 *   mail before it runs, with exactly the arguments shown on the card.
 */
import * as z from "zod";
import { fail } from "../shared/result.ts";
import {
  type ContextResolver,
  defineContextResolver,
  defineTool,
  success,
  type Tool,
  toolFailure,
} from "../shared/tool-framework/index.ts";

export interface Order {
  readonly id: string;
  /** The customer's routing key (lower-case, no +tag). */
  readonly customer: string;
  readonly status: "processing" | "shipped" | "delivered";
  readonly totalCents: number;
  readonly items: readonly string[];
}

export interface OrderBackend {
  find(id: string): Promise<Order | null>;
  refund(
    order: Order,
    amountCents: number,
    reason: string,
    idempotencyKey: string,
  ): Promise<{ refundId: string }>;
}

/** A demo backend with a few orders, so the example runs locally; refunds are kept in memory. */
export function demoOrderBackend(orders: readonly Order[] = DEMO_ORDERS): OrderBackend & {
  refunds: Map<string, { order: string; amountCents: number }>;
  list(customer: string): Promise<readonly Order[]>;
} {
  const refunds = new Map<string, { order: string; amountCents: number }>();
  return {
    refunds,
    list: async (customer) => orders.filter((o) => o.customer === customer),
    find: async (id) => orders.find((o) => o.id === id) ?? null,
    async refund(order, amountCents, _reason, key) {
      // Idempotent on the key the engine supplies: an applied plan replayed after a crash refunds once.
      if (!refunds.has(key)) refunds.set(key, { order: order.id, amountCents });
      return { refundId: `rf-${key.slice(-8)}` };
    },
  };
}

export const DEMO_ORDERS: readonly Order[] = [
  {
    id: "A-1001",
    customer: "you@sender.postern.test",
    status: "shipped",
    totalCents: 4599,
    items: ["kettle"],
  },
  {
    id: "A-1002",
    customer: "carol@customer.example",
    status: "processing",
    totalCents: 2000,
    items: ["mug", "tea"],
  },
];

const orderId = z.string().regex(/^[A-Z]-\d{4}$/, "an order number like A-1001");

export function orderTools(backend: OrderBackend): Tool[] {
  const ownOrder = async (id: string, sender: string | undefined): Promise<Order | null> => {
    const order = await backend.find(id);
    // Someone else's order is "not found", never "not yours": no oracle over other customers' order numbers.
    return order && sender && order.customer === sender ? order : null;
  };
  return [
    defineTool({
      name: "lookup_order",
      description: "Look up one of the sender's own orders by number (e.g. A-1001): status, items and total.",
      summary: "Order status for the verified sender's own orders.",
      input: z.object({ order: orderId }).strict(),
      // Customer records are record content: kept from external models unless the policy allows it (G13).
      egress: {
        kind: "classified",
        record: true,
        classifyInput: () => [],
        classifyResult: () => ["customer-record"],
      },
      sideEffects: { kind: "none" },
      async use(ctx, input) {
        const order = await ownOrder(input.order, ctx.sender?.routingKey);
        if (!order) return toolFailure("order-not-found", `no order ${input.order} for this sender`);
        return success({
          order: order.id,
          status: order.status,
          items: order.items,
          totalCents: order.totalCents,
        });
      },
    }),
    defineTool({
      name: "issue_refund",
      description:
        "Propose a refund for one of the sender's own orders. It does not run now: an approver confirms it by mail first.",
      summary: "Refund an order (needs an approver's confirmation).",
      input: z
        .object({
          order: orderId,
          amountCents: z.number().int().positive().max(100_000),
          reason: z.string().min(3).max(300),
        })
        .strict(),
      egress: { kind: "structure" },
      sideEffects: { kind: "external", confirm: true },
      async use(ctx, input) {
        const order = await ownOrder(input.order, ctx.sender?.routingKey);
        if (!order) return toolFailure("order-not-found", `no order ${input.order} for this sender`);
        if (input.amountCents > order.totalCents)
          return toolFailure("refund-too-large", "more than the order total");
        const done = await backend.refund(order, input.amountCents, input.reason, ctx.idempotencyKey);
        return success({ refundId: done.refundId, order: order.id, amountCents: input.amountCents });
      },
    }),
  ];
}

/**
 * Example resolver: before the first model call, the verified sender's own orders, so the agent can answer "where
 * is my order?" without a tool round. Grant it like a tool (put `customer_profile` in a toolkit's tools).
 */
export function customerProfileResolver(
  backend: OrderBackend & { list?(customer: string): Promise<readonly Order[]> },
): ContextResolver {
  return defineContextResolver({
    name: "customer_profile",
    description: "the sender's own orders",
    egress: {
      kind: "classified",
      record: true,
      classifyInput: () => [],
      classifyResult: () => ["customer-record"],
    },
    async resolve(ctx) {
      if (!ctx.sender || !backend.list) return fail("no-sender");
      const orders = await backend.list(ctx.sender.routingKey);
      return {
        ok: true,
        data: {
          customer: ctx.sender.routingKey,
          orders: orders.map((o) => ({ order: o.id, status: o.status })),
        },
      };
    },
  });
}
