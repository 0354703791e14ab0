export interface FileSummary {
  readonly path: string;
  readonly summary: Record<
    "lines" | "branches" | "functions",
    { readonly covered: number; readonly total: number }
  >;
}
export interface ModuleRow {
  readonly name: string;
  readonly files: number;
  readonly lines: number;
  readonly branches: number;
  readonly functions: number;
}
export function moduleOf(relPath: string): string;
export function summarise(files: readonly FileSummary[], root: string): ModuleRow[];
export function formatLine(row: ModuleRow): string;
export default class ModuleCoverage {
  constructor(opts?: { root?: string });
  execute(context: unknown): void;
}
