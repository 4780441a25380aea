import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TroupeError } from '../../util/errors.js';
import { testDir } from '../../util/test-dir.test-helper.js';
import { loadCheckpoint, saveCheckpoint } from '../io/checkpoint.js';
import { randomLlamaTensors } from '../io/random-tensors.js';
import { llamaConfig } from '../model/llama-config.js';
import { CharTokenizer } from '../tokenizer/char-tokenizer.js';
import { gitBlobId, startFakeHub, writeCachedSnapshot, type FakeRepo } from './fake-hub.test-helper.js';
import { findModelFolder, listCachedModels, resolveModel } from './resolve-model.js';
import type { HubEnv } from './types.js';

const root = testDir('troupe-hub-');
const modelDir = join(root, 'fixture');
const config = llamaConfig({ hidden: 16, layers: 1, heads: 2, intermediate: 32, vocab: 64, context: 32 });
saveCheckpoint(modelDir, { config, tensors: randomLlamaTensors(config, 3), tokenizer: CharTokenizer.standard() });
const fixtureFiles = new Map(readdirSync(modelDir).map((f) => [f, readFileSync(join(modelDir, f))]));
const commit = 'c0ffee'.padEnd(40, '7');
const files = new Map([...fixtureFiles, ['README.md', Buffer.from('# tiny\n')], ['pytorch_model.bin', Buffer.alloc(4096, 1)]]);
const adapterFiles = new Map([
  ['adapter_config.json', Buffer.from('{"peft_type": "LORA", "r": 2}')],
  ['adapter_model.safetensors', Buffer.alloc(300, 7)],
  ['README.md', Buffer.from('# adapter\n')],
]);
const repos = new Map<string, FakeRepo>([
  ['troupe-test/tiny', { commit, files }],
  ['troupe-test/tiny-lora', { commit, files: adapterFiles }],
  ['troupe-test/gated', { commit, files, token: 'hf_secret' }],
]);
const hub = await startFakeHub(repos);
after(() => hub.close());

let caches = 0;
function freshEnv(overrides: Partial<HubEnv> = {}): HubEnv {
  return { cacheDir: join(root, `cache-${caches++}`), endpoint: hub.endpoint, offline: false, ...overrides };
}
function sink(): { write(t: string): void; text: string; isTTY: false } {
  return { text: '', isTTY: false, write(t) { this.text += t; } };
}
const checkpointError = (pattern: RegExp) => (error: unknown) => error instanceof TroupeError && pattern.test(error.message);

test('a hub id is downloaded into the huggingface_hub layout, then found with no request', async () => {
  const env = freshEnv();
  const progress = sink();
  const dir = await resolveModel('troupe-test/tiny', { env, progress });
  const repoDir = join(env.cacheDir, 'models--troupe-test--tiny');
  assert.equal(dir, join(repoDir, 'snapshots', commit));
  assert.equal(readFileSync(join(repoDir, 'refs', 'main'), 'utf8'), commit);
  assert.deepEqual(readdirSync(dir).sort(), [...fixtureFiles.keys()].sort(), 'only the files Troupe loads, no README or .bin');
  for (const [name, data] of fixtureFiles) {
    assert.ok(lstatSync(join(dir, name)).isSymbolicLink(), `${name} is a symlink`);
    const etag = name.endsWith('.safetensors') ? (await import('node:crypto')).createHash('sha256').update(data).digest('hex') : gitBlobId(data);
    assert.equal(readlinkSync(join(dir, name)), join('..', '..', 'blobs', etag), `${name} links to its etag's blob`);
    assert.deepEqual(readFileSync(join(dir, name)), data);
  }
  assert.ok(!readdirSync(join(repoDir, 'blobs')).some((b) => b.endsWith('.incomplete')));
  assert.equal(loadCheckpoint(dir).config.hidden_size, 16);
  assert.match(progress.text, /downloaded troupe-test\/tiny\/model\.safetensors \(/);
  assert.ok(hub.requests.every((r) => !r.path.includes('README') && !r.path.includes('.bin')));

  const before = hub.requests.length;
  assert.equal(await resolveModel('troupe-test/tiny', { env, progress }), dir);
  assert.equal(await resolveModel(`troupe-test/tiny@${commit}`, { env, progress }), dir);
  assert.equal(findModelFolder('troupe-test/tiny', env), dir);
  assert.equal(hub.requests.length, before, 'the cache answers without touching the hub');
});

test('an interrupted download resumes from the .incomplete file with a Range request', async () => {
  const env = freshEnv();
  hub.cutNextCdnResponseAfter = 1000;
  const download = resolveModel('troupe-test/tiny', { env, progress: sink() });
  const repoDir = join(env.cacheDir, 'models--troupe-test--tiny');
  const incomplete = () => (existsSync(join(repoDir, 'blobs')) ? readdirSync(join(repoDir, 'blobs')).filter((b) => b.endsWith('.incomplete')) : []);
  for (let wait = 0; wait < 500 && !incomplete().some((f) => statSync(join(repoDir, 'blobs', f)).size === 1000); wait++) await new Promise((r) => setTimeout(r, 10));
  hub.dropHeldResponse();
  await assert.rejects(download, checkpointError(/broke off.*run the same command again to resume/));
  const partial = incomplete();
  assert.equal(partial.length, 1);
  assert.equal(statSync(join(repoDir, 'blobs', partial[0]!)).size, 1000);
  assert.ok(!existsSync(join(repoDir, 'snapshots', commit, 'model.safetensors')), 'no snapshot link before the file is complete');
  assert.ok(!existsSync(join(repoDir, 'refs', 'main')), 'no ref before the snapshot is complete');

  const before = hub.requests.length;
  const dir = await resolveModel('troupe-test/tiny', { env, progress: sink() });
  const cdnGets = hub.requests.slice(before).filter((r) => r.server === 'cdn' && r.method === 'GET');
  assert.deepEqual(cdnGets.map((r) => r.headers.range), ['bytes=1000-']);
  assert.deepEqual(readFileSync(join(dir, 'model.safetensors')), fixtureFiles.get('model.safetensors'));
});

test('two loads of the same id at once download each file once', async () => {
  const env = freshEnv();
  const before = hub.requests.length;
  const [a, b] = await Promise.all([resolveModel('troupe-test/tiny', { env, progress: sink() }), resolveModel('troupe-test/tiny', { env, progress: sink() })]);
  assert.equal(a, b);
  const gets = hub.requests.slice(before).filter((r) => r.method === 'GET' && !r.path.includes('/api/'));
  const perFile = new Map<string, number>();
  for (const r of gets) perFile.set(r.path, (perFile.get(r.path) ?? 0) + 1);
  assert.ok([...perFile.values()].every((n) => n === 1), `GETs per file: ${JSON.stringify([...perFile])}`);
  for (const [name, data] of fixtureFiles) assert.deepEqual(readFileSync(join(a, name)), data);
  assert.ok(!readdirSync(join(env.cacheDir, 'models--troupe-test--tiny', 'blobs')).some((f) => f.endsWith('.lock')), 'no lock left behind');
});

test('offline and not cached: a clear error and no request', async () => {
  const env = freshEnv({ offline: true });
  const before = hub.requests.length;
  await assert.rejects(resolveModel('troupe-test/tiny', { env }), checkpointError(/troupe-test\/tiny is not in the cache at .*models--troupe-test--tiny and HF_HUB_OFFLINE is set/));
  assert.equal(hub.requests.length, before);
});

test('a gated repo needs HF_TOKEN, which is sent to the hub but never to the CDN', async () => {
  await assert.rejects(resolveModel('troupe-test/gated', { env: freshEnv() }), checkpointError(/gated.*set HF_TOKEN/));
  const before = hub.requests.length;
  const dir = await resolveModel('troupe-test/gated', { env: freshEnv({ token: 'hf_secret' }), progress: sink() });
  assert.ok(existsSync(join(dir, 'model.safetensors')));
  const used = hub.requests.slice(before);
  assert.ok(used.filter((r) => r.server === 'hub').every((r) => r.headers.authorization === 'Bearer hf_secret'));
  assert.ok(used.some((r) => r.server === 'cdn') && used.filter((r) => r.server === 'cdn').every((r) => r.headers.authorization === undefined));
});

test('404s name the missing model or revision; other strings are neither folder nor hub id', async () => {
  await assert.rejects(resolveModel('troupe-test/nope', { env: freshEnv() }), checkpointError(/troupe-test\/nope is not on the hub \(HTTP 404 RepoNotFound/));
  await assert.rejects(resolveModel('troupe-test/tiny@v9', { env: freshEnv() }), checkpointError(/troupe-test\/tiny@v9: no such revision/));
  for (const text of ['./nowhere/model', 'a/b/c', 'just-a-name', 'bad--org/name', 'org/name@']) {
    await assert.rejects(resolveModel(text, { env: freshEnv() }), checkpointError(/no such folder .*not a hub id/), text);
  }
});

test('a cache written by huggingface_hub is found offline, and listed', async () => {
  const env = freshEnv({ endpoint: 'http://127.0.0.1:9', offline: false }); // nothing listens there
  const repoDir = join(env.cacheDir, 'models--Org--Cached');
  writeCachedSnapshot(env.cacheDir, 'Org/Cached', commit, fixtureFiles);
  // A second repo with only config.json (an interrupted transformers download) is listed as incomplete.
  mkdirSync(join(env.cacheDir, 'models--Org--Partial', 'snapshots', commit), { recursive: true });
  writeFileSync(join(env.cacheDir, 'models--Org--Partial', 'snapshots', commit, 'config.json'), '{}');
  mkdirSync(join(env.cacheDir, 'models--Org--Partial', 'refs'));
  writeFileSync(join(env.cacheDir, 'models--Org--Partial', 'refs', 'main'), commit);
  mkdirSync(join(env.cacheDir, 'datasets--Org--Data'), { recursive: true });

  const dir = await resolveModel('Org/Cached', { env });
  assert.equal(dir, join(repoDir, 'snapshots', commit));
  assert.equal(loadCheckpoint(dir).config.num_hidden_layers, 1);
  assert.equal(await resolveModel(`Org/Cached@${commit}`, { env: { ...env, offline: true } }), dir);
  assert.deepEqual(
    listCachedModels(env).map((m) => [m.id, m.commit, m.refs, m.complete]),
    [['Org/Cached', commit, ['main'], true], ['Org/Partial', commit, ['main'], false]],
  );
  assert.throws(() => findModelFolder('Org/Partial', { ...env, offline: true }), checkpointError(/Org\/Partial is not in the cache at .* lacks model\.safetensors\) and HF_HUB_OFFLINE is set/));
  await assert.rejects(resolveModel('Org/Partial', { env }), checkpointError(/cannot reach http:\/\/127\.0\.0\.1:9/));
});

test('an existing folder is returned as given, even when it looks like a hub id', async () => {
  assert.equal(await resolveModel(modelDir, { env: freshEnv({ offline: true }) }), modelDir);
  const relative = join(root, 'Org', 'Name');
  mkdirSync(relative, { recursive: true });
  assert.equal(await resolveModel(relative, { env: freshEnv({ offline: true }) }), relative);
});

test('a PEFT adapter repo downloads its adapter files and is then found in the cache', async () => {
  const env = freshEnv();
  const dir = await resolveModel('troupe-test/tiny-lora', { env, progress: sink() });
  assert.deepEqual(readdirSync(dir).sort(), ['adapter_config.json', 'adapter_model.safetensors']);
  assert.deepEqual(readFileSync(join(dir, 'adapter_model.safetensors')), adapterFiles.get('adapter_model.safetensors'));
  const before = hub.requests.length;
  assert.equal(await resolveModel('troupe-test/tiny-lora', { env: { ...env, offline: true } }), dir);
  assert.equal(hub.requests.length, before);
});

test('a path-like id that is neither a folder here nor on the hub says both, for the user who meant a path', async () => {
  // No `models/` folder in the working directory, so `models/nope` reads as a hub id first.
  assert.equal(existsSync('models'), false);
  const env = freshEnv({ endpoint: 'http://127.0.0.1:9', offline: false }); // nothing listens there
  await assert.rejects(
    resolveModel('models/nope', { env, progress: sink() }),
    checkpointError(/cannot reach http:\/\/127\.0\.0\.1:9 .*; nor is there a folder "models\/nope" in .* \(if you meant a path, check its spelling\)$/),
  );
});
