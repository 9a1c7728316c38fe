/**
 * Checked only by `npm run typecheck:pi-latest` (tsconfig.pi-latest.json),
 * against Pi 1.x's own declarations: the structural types this package
 * feature-detects Pi 1.x with (it compiles against Pi 0.87.1, which lacks
 * them) must match what Pi 1.x really declares. A Pi release that changes
 * one of these fails here, not in a user's session.
 */
import type { DefaultPackageManager, ExtensionFactory, ExtensionToolContext, InlineExtension, ToolDefinition, ToolInfo } from '@earendil-works/pi-coding-agent';
import type * as Sdk from '@earendil-works/pi-coding-agent';
import type { NestedToolContext, NestedToolOutcome } from '../../plugins/host/tool-executor.js';
import type { HostToolFields, structuredError, structuredResult } from '../../plugins/host/tools/native.js';
import type { BuiltinExtension } from '../../plugins/pi-transport/builtins.js';
import type { ToolResultParts } from '../../plugins/host/tool-call.js';

type Assert<T extends true> = T;
type Extends<A, B> = [A] extends [B] ? true : false;

/** A tool call's context is what `nestedToolContext` detects and `callNested` uses. */
export type ToolContextIsNested = Assert<Extends<ExtensionToolContext, NestedToolContext>>;
/** `executeTool`'s outcome carries what the script value is read from. */
export type OutcomeFits = Assert<Extends<Awaited<ReturnType<ExtensionToolContext['executeTool']>>, NestedToolOutcome>>;
export type ResultFits = Assert<Extends<Awaited<ReturnType<ExtensionToolContext['executeTool']>>['result'], ToolResultParts>>;
/** `getAllTools()` reports the exposure `callableToolNames` reads. */
export type ToolInfoHasExposure = Assert<Extends<ToolInfo, { readonly name: string; readonly exposure: 'direct' | 'model-only' | 'codemode' | 'deferred' | 'hidden' }>>;
/** Our output schema, exposure and read-only hint are Pi's definition fields. */
export type FieldsFit = Assert<Extends<HostToolFields, Pick<ToolDefinition, 'outputSchema' | 'exposure' | 'annotations'>>>;
/** Our structured results are Pi tool results. */
export type ResultShapesFit = Assert<Extends<ReturnType<typeof structuredResult> | ReturnType<typeof structuredError>, Awaited<ReturnType<ToolDefinition['execute']>>>>;
/** The built-in extensions: Pi's inline-extension form, the SDK factories, the package manager option. */
export type BuiltinIsInline = Assert<Extends<Omit<BuiltinExtension, 'factory'> & { factory: ExtensionFactory }, InlineExtension>>;
export type BuiltinFactoriesExist = Assert<Extends<Pick<typeof Sdk, 'createCodemodeExtension' | 'createToolSearchExtension' | 'createMcpExtension'>, Record<string, () => ExtensionFactory>>>;
export type PackageManagerTakesBuiltins = Assert<Extends<{ builtinExtensions: string[] }, Partial<ConstructorParameters<typeof DefaultPackageManager>[0]>>>;
