import { createReferenceKernels } from '../kernels/reference.js';
import { runOpGradChecks } from './op-grad-checks.js';

runOpGradChecks('reference', createReferenceKernels);
