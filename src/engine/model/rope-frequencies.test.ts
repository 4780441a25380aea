import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ropeInverseFrequencies } from './rope-frequencies.js';

test('plain RoPE: invFreq[i] = theta^(-2i/headDim)', () => {
  const f = ropeInverseFrequencies({ headDim: 6, theta: 100 });
  assert.deepEqual(Array.from(f), [1, Math.fround(100 ** (-2 / 6)), Math.fround(100 ** (-4 / 6))]);
});

test('llama3 scaling: short wavelengths kept, long ones divided, the band between interpolated', () => {
  // theta 10000, headDim 8: plain frequencies 1, 0.1, 0.01, 0.001 -> wavelengths 6.3, 63, 628, 6283.
  // original context 400, low 1, high 4: wavelengths < 100 kept, > 400 divided by factor 8.
  const scaling = { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 400 } as const;
  const f = Array.from(ropeInverseFrequencies({ headDim: 8, theta: 10000, scaling }));
  const plain = [1, 0.1, 0.01, 0.001];
  assert.equal(f[0], Math.fround(plain[0]!));
  assert.equal(f[1], Math.fround(plain[1]!));
  assert.equal(f[2], Math.fround(plain[2]! / 8));
  assert.equal(f[3], Math.fround(plain[3]! / 8));
  // Wavelength 200 is in the band: smooth = (400 / 200 - 1) / (4 - 1) = 1/3. With headDim 4
  // and theta = 1 / mid^2, pair 1 has frequency theta^(-1/2) = mid.
  const mid = (2 * Math.PI) / 200;
  const band = ropeInverseFrequencies({ headDim: 4, theta: 1 / (mid * mid), scaling });
  const smooth = 1 / 3;
  assert.ok(Math.abs(band[1]! - ((1 - smooth) * (mid / 8) + smooth * mid)) < 1e-9);
});
