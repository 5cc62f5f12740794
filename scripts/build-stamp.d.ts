// Types of build-stamp.js for the TypeScript that imports it (the tests' built.ts).
export declare const root: string;
export declare const PARTS: Record<'viewer' | 'editor' | 'app', { inputs: string[]; output: string; script: string }>;
export declare function inputStamp(part: keyof typeof PARTS): string;
export declare function current(part: keyof typeof PARTS, stamps?: Record<string, string>): boolean;
export declare function buildStale(log?: (s: string) => void): string[];
