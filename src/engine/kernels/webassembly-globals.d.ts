/**
 * The part of the WebAssembly JavaScript API the kernels use. TypeScript declares it only in
 * the DOM libraries, which this Node project does not load; Node 20 has it globally.
 */
declare namespace WebAssembly {
  interface MemoryDescriptor {
    initial: number;
    maximum?: number;
    shared?: boolean;
  }
  class Memory {
    constructor(descriptor: MemoryDescriptor);
    readonly buffer: ArrayBuffer | SharedArrayBuffer;
    grow(delta: number): number;
  }
  class Module {
    constructor(bytes: BufferSource);
  }
  type Imports = Record<string, Record<string, unknown>>;
  class Instance {
    constructor(module: Module, imports?: Imports);
    readonly exports: Record<string, unknown>;
  }
  function validate(bytes: BufferSource): boolean;
}
