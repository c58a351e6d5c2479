export function startNodeFlags(root: string): string[];
export function startNextOptions(root: string): string[];
export function nextStartArgs(root: string, port: number | string, host: string, extraNodeArgs?: string[]): string[];
