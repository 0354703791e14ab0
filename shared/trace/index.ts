export { confirmToolPredicate } from "./confirm-tools.ts";
export { type TimelineContext, type TimelineItem, timeline, timelineTree } from "./timeline.ts";
