import { runKernelConformance } from './conformance.js';
import { createReferenceKernels } from './reference.js';

runKernelConformance('reference', () => createReferenceKernels());
