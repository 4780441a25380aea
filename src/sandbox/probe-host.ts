/**
 * Finds what the sandbox needs on this machine, once per Sandbox: `unshare` (util-linux),
 * root privileges or else unprivileged user namespaces (`rootless`), the real path of `python3` (following pyenv-style shims) and of node, and
 * the host paths the sandboxed root must show read-only so that those interpreters start.
 * Anything missing is a `TroupeError('sandbox')` naming the missing piece and the fix.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { TroupeError } from '../util/errors.js';

/** Everything run-program.ts needs to know about the host. */
export interface HostSetup {
  readonly unshare: string;
  /**
   * True when Troupe is not root: the sandbox then starts in a user namespace of its own where
   * the init is root of that namespace only (the unprivileged user outside), and the program
   * keeps that uid with every capability dropped instead of switching to a sandbox uid.
   */
  readonly rootless: boolean;
  /** Real path of the python3 executable (used for the init process and Python programs). */
  readonly python: string;
  /** Real path of the node executable (for JavaScript programs). */
  readonly node: string;
  /** Host paths bound read-only at the same place inside the sandbox. */
  readonly binds: readonly string[];
  /** [path, target] symlinks recreated inside (e.g. /bin -> usr/bin on merged-/usr systems). */
  readonly symlinks: ReadonlyArray<readonly [string, string]>;
  /** Device files bound inside (/dev/null and the like). */
  readonly devices: readonly string[];
}

export interface ProbeOptions {
  /** Command that starts Python 3; default `python3` from PATH. */
  readonly python?: string;
}

const TOP_LEVEL = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
const ETC_FILES = ['/etc/ld.so.cache', '/etc/ld.so.conf', '/etc/localtime'];
const DEVICES = ['/dev/null', '/dev/zero', '/dev/random', '/dev/urandom'];

function findOnPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(':')) {
    if (dir && existsSync(`${dir}/${command}`)) return `${dir}/${command}`;
  }
  return undefined;
}

/** Folders the sandbox makes itself (writable /tmp, the program's /box, /proc, /dev): never bound read-only over them. */
const SANDBOX_OWNED = ['/tmp', '/box', '/proc', '/dev'];

/**
 * The folder to bind for an executable: its install prefix (/opt/node for /opt/node/bin/node),
 * or its own folder when that prefix is one the sandbox makes itself (/tmp for /tmp/x/node:
 * binding /tmp read-only would leave programs no writable /tmp, and the sandbox would not start).
 */
export function executablePrefix(executable: string): string {
  const prefix = dirname(dirname(executable));
  return SANDBOX_OWNED.includes(prefix) ? dirname(executable) : prefix;
}

/** The prefix a path lives under, unless /usr (bound anyway) already covers it. */
function prefixOutsideUsr(dir: string): string | undefined {
  return dir === '/usr' || dir.startsWith('/usr/') ? undefined : dir;
}

/** `unshare` from PATH (or /usr/bin), if installed. */
export function findUnshare(): string | undefined {
  return findOnPath('unshare') ?? (existsSync('/usr/bin/unshare') ? '/usr/bin/unshare' : undefined);
}

/**
 * Whether this (non-root) process may create the namespaces the sandbox uses, inside a user
 * namespace of its own: tried once with `true` (a few milliseconds), since kernels, sysctls,
 * seccomp filters and AppArmor each may forbid it and none says so up front.
 */
export function userNamespacesWork(unshare: string): boolean {
  const tried = spawnSync(unshare, ['--user', '--map-root-user', '--mount', '--pid', '--net', '--ipc', '--uts', '--fork', 'true'], { stdio: 'ignore', timeout: 20_000 });
  return tried.status === 0;
}

export function probeHost(options: ProbeOptions = {}): HostSetup {
  if (process.platform !== 'linux') {
    throw new TroupeError(
      'sandbox',
      `the code sandbox needs Linux namespaces; this is '${process.platform}'. Run Troupe's code tasks on Linux (a container is fine).`,
    );
  }
  const unshare = findUnshare();
  if (!unshare) {
    throw new TroupeError('sandbox', `'unshare' was not found on PATH; install util-linux (apt-get install -y util-linux).`);
  }
  const rootless = process.getuid?.() !== 0;
  if (rootless && !userNamespacesWork(unshare)) {
    throw new TroupeError(
      'sandbox',
      `the code sandbox needs root (uid 0) or unprivileged user namespaces to create its namespaces; this process has uid ${process.getuid?.()} and '${unshare} --user --map-root-user --mount --pid --fork true' fails here. Run Troupe as root inside a container or VM, or allow user namespaces (sysctl user.max_user_namespaces, kernel.unprivileged_userns_clone, or the AppArmor userns restriction).`,
    );
  }
  const pythonCommand = options.python ?? 'python3';
  let pythonInfo: { executable: string; prefixes: string[] };
  try {
    const out = execFileSync(
      pythonCommand,
      ['-I', '-c', 'import json,sys; print(json.dumps({"executable": sys.executable, "prefixes": [sys.prefix, sys.base_prefix, sys.exec_prefix]}))'],
      { encoding: 'utf8', timeout: 20_000, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    pythonInfo = JSON.parse(out) as typeof pythonInfo;
  } catch (cause) {
    throw new TroupeError(
      'sandbox',
      `could not start '${pythonCommand}' to locate Python 3 (${(cause as Error).message.split('\n')[0]}). Install python3 (apt-get install -y python3) or pass the python option.`,
      { cause },
    );
  }
  const python = realpathSync(pythonInfo.executable);
  const node = realpathSync(process.execPath);

  const binds = new Set<string>(['/usr']);
  const symlinks: Array<readonly [string, string]> = [];
  for (const path of TOP_LEVEL) {
    if (!existsSync(path)) continue;
    if (lstatSync(path).isSymbolicLink()) symlinks.push([path, readlinkSync(path)]);
    else binds.add(path);
  }
  for (const path of ETC_FILES) if (existsSync(path)) binds.add(path);
  const prefixes = [...pythonInfo.prefixes.map((p) => realpathSync(p)).filter((p) => !SANDBOX_OWNED.includes(p)), executablePrefix(python), executablePrefix(node)];
  for (const prefix of prefixes) {
    const outside = prefixOutsideUsr(prefix);
    if (outside && outside !== '/' && ![...binds].some((b) => outside === b || outside.startsWith(`${b}/`))) {
      binds.add(outside);
    }
  }
  symlinks.push(['/dev/fd', '/proc/self/fd'], ['/dev/stdin', '/proc/self/fd/0']);
  symlinks.push(['/dev/stdout', '/proc/self/fd/1'], ['/dev/stderr', '/proc/self/fd/2']);
  return {
    unshare,
    rootless,
    python,
    node,
    binds: [...binds],
    symlinks,
    devices: DEVICES.filter((d) => existsSync(d)),
  };
}
