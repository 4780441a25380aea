import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { testDir } from '../../util/test-dir.test-helper.js';
import { readHubEnv } from './hub-env.js';
import { formatHubId, parseHubId, repoFolderName } from './hub-id.js';

test('the cache is HF_HUB_CACHE, else HF_HOME/hub, else ~/.cache/huggingface/hub', () => {
  assert.equal(readHubEnv({ HF_HUB_CACHE: '/c', HF_HOME: '/h' }).cacheDir, '/c');
  assert.equal(readHubEnv({ HF_HOME: '/h' }).cacheDir, join('/h', 'hub'));
  assert.equal(readHubEnv({ XDG_CACHE_HOME: '/x' }).cacheDir, join('/x', 'huggingface', 'hub'));
  assert.equal(readHubEnv({}).cacheDir, join(homedir(), '.cache', 'huggingface', 'hub'));
  assert.equal(readHubEnv({ HF_HUB_CACHE: '~/hf' }).cacheDir, join(homedir(), 'hf'));
});

test('endpoint, token (variable, then the token file) and the offline switches', () => {
  const home = testDir('troupe-hf-home-');
  assert.equal(readHubEnv({ HF_HOME: home }).endpoint, 'https://huggingface.co');
  assert.equal(readHubEnv({ HF_HOME: home, HF_ENDPOINT: 'http://mirror:8080/' }).endpoint, 'http://mirror:8080');
  assert.equal(readHubEnv({ HF_HOME: home }).token, undefined);
  writeFileSync(join(home, 'token'), 'hf_from_file\n');
  assert.equal(readHubEnv({ HF_HOME: home }).token, 'hf_from_file');
  assert.equal(readHubEnv({ HF_HOME: home, HF_TOKEN: 'hf_env' }).token, 'hf_env');
  for (const on of ['1', 'true', 'YES', 'on']) assert.equal(readHubEnv({ HF_HOME: home, HF_HUB_OFFLINE: on }).offline, true, on);
  for (const off of ['0', 'false', '']) assert.equal(readHubEnv({ HF_HOME: home, HF_HUB_OFFLINE: off }).offline, false, off);
  assert.equal(readHubEnv({ HF_HOME: home, TRANSFORMERS_OFFLINE: '1' }).offline, true);
  assert.equal(readHubEnv({ HF_HOME: home, HF_HUB_OFFLINE: '0', TRANSFORMERS_OFFLINE: '1' }).offline, false, 'HF_HUB_OFFLINE wins when set');
});

test('hub ids: Org/Name[@revision] with the hub naming rules; anything else is a folder', () => {
  assert.deepEqual(parseHubId('Qwen/Qwen3-0.6B'), { repo: 'Qwen/Qwen3-0.6B', revision: 'main' });
  assert.deepEqual(parseHubId('meta-llama/Llama-3.2-1B@refs/pr/1'), { repo: 'meta-llama/Llama-3.2-1B', revision: 'refs/pr/1' });
  assert.equal(formatHubId({ repo: 'a/b', revision: 'v1' }), 'a/b@v1');
  for (const text of ['qwen', './a/b', '/a/b', 'a/b/c', 'a/', '-a/b', 'a./b', 'a--b/c', 'a/b..c', 'a/b@', 'a/b@../x', 'a b/c', `a/${'x'.repeat(100)}`]) {
    assert.equal(parseHubId(text), undefined, text);
  }
  assert.equal(repoFolderName('Qwen/Qwen3-0.6B'), 'models--Qwen--Qwen3-0.6B');
});
