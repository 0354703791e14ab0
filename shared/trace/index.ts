// Front door of shared/trace: reading a run's trace back as a timeline. Outside this folder, import this file
// only (docs/architecture.md).

export { confirmToolPredicate } from "./confirm-tools.ts";
export { type TimelineContext, type TimelineItem, timeline, timelineTree } from "./timeline.ts";
