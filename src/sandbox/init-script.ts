/**
 * The sandbox's init process, as Python source. It is trusted code written by Troupe (never
 * model output). `unshare` starts it in fresh mount, network, IPC and UTS namespaces and with
 * a fresh PID namespace for its children. Python is used because the machine's `python3` is
 * already required for Python tasks and it can do what a shell cannot without extra
 * packages: the mount and pivot_root system calls, setrlimit, dropping to an unprivileged
 * uid, and `wait4` (exit status plus CPU time of the program).
 *
 * Steps (see docs/sandbox.md for what they guarantee):
 *  0. fork the init, PID 1 of the new PID namespace, which dies with its parent;
 *  1. mount a size-capped tmpfs as the new root; bind the few host paths an interpreter
 *     needs read-only, nosuid, nodev (only the /dev/null-style device files keep dev);
 *     the tmpfs caps bytes and inodes, so filling it fails with ENOSPC, not host trouble;
 *  2. copy the input files into /box (the program's working directory, owned by the
 *     sandbox uid), mount a /proc that shows only this PID namespace;
 *  3. pivot_root into the new root and detach the old one, so the host tree is unreachable;
 *  4. fork the program: rlimits (CPU, data segment, process count, file size, open files,
 *     no core dumps), drop all groups and capabilities by switching to the sandbox uid (or,
 *     rootless, where the user namespace has only uid 0: lock the securebits so that uid 0
 *     never regains a capability, empty the bounding, ambient and permitted sets), set
 *     no_new_privs, then exec node, or run a Python program in the forked interpreter;
 *  5. as PID 1, reap every process, enforce the wall-clock limit with SIGALRM, and when the
 *     program ends kill and reap everything left in the namespace (kill(-1) from PID 1
 *     reaches every other process of the namespace); report one JSON line on fd 3.
 *
 * Config arrives as one argument holding a Python literal (`InitConfig` in run-program.ts,
 * written by `toPythonLiteral`; Troupe's own data, never model output). The script avoids
 * json, platform and shutil because their imports cost ~20 ms of CPU on every run. Exit codes
 * of the init itself: 0 after reporting, 70 when setup failed (the message is on fd 3 as JSON).
 */
export const INIT_SCRIPT = String.raw`
import sys
del sys.path[0]  # the current directory: never import from it as root
import ctypes, os, resource, signal, time

cfg = eval(sys.argv[1], {'__builtins__': {}})
report_fd = 3
libc = ctypes.CDLL(None, use_errno=True)
PR_SET_PDEATHSIG = 1

# Stage 0: unshare gave us new namespaces, but a new PID namespace only for our children. Fork
# the init (PID 1 there), close our copies of the pipes so that Troupe sees them end as soon as
# the init is done, and wait. The init dies with us (PDEATHSIG): Troupe kills the whole run by
# killing this process. Troupe does not wait for our exit, which comes only after the kernel
# has torn the init's namespaces down.
if os.fork() != 0:
    for fd in range(5):
        try:
            os.close(fd)
        except OSError:
            pass
    try:
        os.wait()
    finally:
        os._exit(0)
libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
if os.getpid() != 1:
    # kill(-1) below must only ever reach this PID namespace: refuse to run outside one.
    os.write(report_fd, b'{"setupError": "init is not PID 1 of a new PID namespace"}\n')
    sys.exit(70)
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MNT_DETACH = 2
PR_SET_NO_NEW_PRIVS = 38
PR_CAPBSET_DROP, PR_SET_SECUREBITS, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 24, 28, 47, 4
# NOROOT, NO_SETUID_FIXUP, KEEP_CAPS (off), NO_CAP_AMBIENT_RAISE, each with its lock bit set.
SECURE_NO_ROOT = 0x01 | 0x02 | 0x04 | 0x08 | 0x20 | 0x40 | 0x80
ST_FLAGS = 1 | 2 | 4 | 8  # statvfs ST_RDONLY, ST_NOSUID, ST_NODEV, ST_NOEXEC: the same bits as MS_*
PIVOT_ROOT = {'x86_64': 155, 'amd64': 155, 'aarch64': 41, 'arm64': 41}

def to_json(value):
    if value is None:
        return 'null'
    if value is True or value is False:
        return 'true' if value else 'false'
    if isinstance(value, str):
        return '"' + ''.join(c if ' ' <= c < '\x7f' and c not in '"\\' else '\\u%04x' % ord(c) for c in value) + '"'
    return str(value)

def report(obj):
    data = ('{' + ', '.join('"%s": %s' % (k, to_json(v)) for k, v in obj.items()) + '}\n').encode()
    try:
        os.write(report_fd, data)
    except OSError:
        pass

def fail(step, detail=''):
    err = ctypes.get_errno()
    report({'setupError': step + ': ' + os.strerror(err) + (' ' + detail if detail else '')})
    sys.exit(70)

def mount(src, target, fstype, flags, data=None):
    if libc.mount(src and src.encode(), target.encode(), fstype and fstype.encode(),
                  ctypes.c_ulong(flags), data and data.encode()) != 0:
        fail('mount ' + target)

root = cfg['root']
mount(None, '/', None, MS_REC | MS_PRIVATE)
mount('tmpfs', root, 'tmpfs', MS_NOSUID | MS_NODEV, 'size=%d,nr_inodes=%d,mode=755' % (cfg['tmpfsBytes'], cfg['tmpfsInodes']))

def bind(src, dst, device=False):
    target = root + dst
    if os.path.isdir(src):
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        open(target, 'a').close()
    mount(src, target, None, MS_BIND | MS_REC)
    flags = MS_BIND | MS_REMOUNT | MS_NOSUID | (0 if device else MS_NODEV | MS_RDONLY)
    if cfg['rootless']:
        # In a user namespace the host mount's own restrictions (noexec /dev, ...) are locked:
        # a remount must keep them, or it fails with EPERM.
        flags |= os.statvfs(target).f_flag & ST_FLAGS
    mount(None, target, None, flags)

for dst, target in cfg['symlinks']:
    os.makedirs(os.path.dirname(root + dst), exist_ok=True)
    os.symlink(target, root + dst)
for src in cfg['binds']:
    bind(src, src)
for dev in cfg['devices']:
    bind(dev, dev, device=True)
uid, gid = cfg['uid'], cfg['gid']
box = root + '/box'
def copy_tree(src, dst):
    os.mkdir(dst)
    os.chown(dst, uid, gid)
    for entry in os.scandir(src):
        target = os.path.join(dst, entry.name)
        if entry.is_dir(follow_symlinks=False):
            copy_tree(entry.path, target)
        elif entry.is_file(follow_symlinks=False):
            with open(entry.path, 'rb') as f_in, open(target, 'wb') as f_out:
                f_out.write(f_in.read())
            os.chown(target, uid, gid)

copy_tree(cfg['input'], box)

class CapHeader(ctypes.Structure):
    _fields_ = [('version', ctypes.c_uint32), ('pid', ctypes.c_int)]

class CapData(ctypes.Structure):
    _fields_ = [('effective', ctypes.c_uint32), ('permitted', ctypes.c_uint32), ('inheritable', ctypes.c_uint32)]

def drop_capabilities():
    # Root of a user namespace holds every capability there: give them all up for good.
    if libc.prctl(PR_SET_SECUREBITS, SECURE_NO_ROOT, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), 'prctl securebits')
    cap = 0
    while libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0:
        cap += 1
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    if libc.capset(ctypes.byref(CapHeader(0x20080522, 0)), (CapData * 2)()) != 0:
        raise OSError(ctypes.get_errno(), 'capset')
os.makedirs(root + '/tmp', mode=0o777, exist_ok=True)
os.chmod(root + '/tmp', 0o1777)
os.makedirs(root + '/proc', exist_ok=True)
# hidepid=2: the program cannot see the init (root) or read its arguments.
mount('proc', root + '/proc', 'proc', MS_NOSUID | MS_NODEV | MS_NOEXEC, 'hidepid=2')
if cfg['rootless']:
    # The program owns the tmpfs root here (uid 0 of the namespace made it): only /box and /tmp
    # stay writable, as bind mounts of themselves, and the root mount becomes read-only.
    for writable in (box, root + '/tmp'):
        mount(writable, writable, None, MS_BIND)
        mount(None, writable, None, MS_BIND | MS_REMOUNT | MS_NOSUID | MS_NODEV)
    mount(None, root, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)

machine = os.uname().machine
nr = PIVOT_ROOT.get(machine)
if nr is None:
    report({'setupError': 'pivot_root: unsupported architecture ' + machine})
    sys.exit(70)
os.chdir(root)
if libc.syscall(ctypes.c_long(nr), b'.', b'.') != 0:
    fail('pivot_root')
if libc.umount2(b'.', MNT_DETACH) != 0:
    fail('umount old root')
os.chdir('/')

limits = cfg['rlimits']
channel_fd = cfg.get('channelFd')
wall_s = cfg['wallMs'] / 1000.0
start = time.monotonic()
pid = os.fork()
if pid == 0:
    try:
        for name, value in limits.items():
            lim = getattr(resource, name)
            soft, hard = value if isinstance(value, list) else (value, value)
            resource.setrlimit(lim, (soft, hard))
        if channel_fd is not None:
            os.dup2(channel_fd, 3)
        else:
            os.close(3)
        os.closerange(4, 1024)
        if cfg['rootless']:
            drop_capabilities()
        else:
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), 'prctl no_new_privs')
        os.chdir('/box')
        if cfg['pythonMain'] is None:
            os.execve(cfg['argv'][0], cfg['argv'], cfg['env'])
    except BaseException as e:
        os.write(2, ('troupe sandbox: could not start the program: %s\n' % e).encode())
        os._exit(127)
    # A Python program runs in this forked interpreter, already privilege-dropped: one Python
    # start-up per run instead of two. It gets what 'python3 -S main.py' would give it: a
    # fresh __main__, argv, sys.path[0], environment, exit()/quit(), and tracebacks without
    # this script's frame.
    import builtins, types
    main_path = cfg['pythonMain']
    os.environ.clear()
    os.environ.update(cfg['env'])
    sys.argv = [main_path]
    sys.path.insert(0, os.path.dirname(main_path))
    builtins.exit = builtins.quit = sys.exit
    def excepthook(kind, value, tb):
        if tb is not None and tb.tb_frame.f_code.co_filename == '<string>':
            tb = tb.tb_next
            value.__traceback__ = tb
        sys.__excepthook__(kind, value, tb)
    sys.excepthook = excepthook
    main_module = types.ModuleType('__main__')
    main_module.__file__ = main_path
    main_module.__builtins__ = builtins
    sys.modules['__main__'] = main_module
    del cfg, libc
    with open(main_path, 'rb') as main_file:
        main_code = main_file.read()
    exec(compile(main_code, main_path, 'exec'), main_module.__dict__)
    raise SystemExit(0)

os.close(0)
if channel_fd is not None:
    os.close(channel_fd)
timed_out = False

def kill_all():
    try:
        os.kill(-1, signal.SIGKILL)
    except ProcessLookupError:
        pass  # nothing else left in the namespace

def on_alarm(signum, frame):
    global timed_out
    timed_out = True
    kill_all()

signal.signal(signal.SIGALRM, on_alarm)
signal.setitimer(signal.ITIMER_REAL, wall_s)
status, usage = 0, None
while True:
    try:
        done, st, ru = os.wait4(-1, 0)
    except ChildProcessError:
        break
    except InterruptedError:
        continue
    if done == pid:
        status, usage = st, ru
        break
signal.setitimer(signal.ITIMER_REAL, 0)
elapsed = time.monotonic() - start
survivors = 0
for entry in os.listdir('/proc'):
    if entry.isdigit() and entry != '1':
        try:
            with open('/proc/' + entry + '/stat') as f:
                if f.read().rsplit(')', 1)[1].split()[0] != 'Z':
                    survivors += 1
        except (OSError, IndexError):
            pass  # ended meanwhile
# Kill and reap until the init has no child left. Orphans are re-parented to the init, so
# no child means no process left in the namespace: when the report arrives, all are gone.
while True:
    kill_all()
    try:
        os.wait()
    except ChildProcessError:
        break
    except InterruptedError:
        continue
report({
    'exitCode': os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
    'signal': os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
    'timedOut': timed_out,
    'cpuMs': round((usage.ru_utime + usage.ru_stime) * 1000) if usage else 0,
    'maxRssKb': usage.ru_maxrss if usage else 0,
    'durationMs': round(elapsed * 1000),
    'survivors': survivors,
})
os._exit(0)  # skip interpreter finalization: the pipes close (and Troupe moves on) sooner
`;
