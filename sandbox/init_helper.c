//go:build cgo

// The builtin backend's init helper, in C, run from a constructor before
// the Go runtime starts (see init_helper.go for why). The parent (builtin.go)
// re-executes this binary with argv[0] "mcpvet-sandbox-init" and
// MCPVET_SANDBOX_INIT=1 in a new mount, pid, ipc, uts (and net, and for a
// non-root user, user) namespace, writes the configuration on descriptor 3
// (records encoded by encodeHelperConfig) and reads events, one JSON object
// a line, on descriptor 4. The helper is pid 1 of the sandbox: it builds
// the new root, starts the server as its child (the confinement and the
// rlimits are set in the child between fork and exec, which Go cannot do),
// forwards termination signals, reaps orphans, and exits when the server
// does, which kills whatever is left in the namespace.
//
// Every step and every message matches the Go helper this replaces
// (Go's errno texts are glibc's with a lowercase first letter).

#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <net/if.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define HELPER_ARGV0 "mcpvet-sandbox-init"
#define HELPER_ENV "MCPVET_SANDBOX_INIT"
#define CONFIG_FD 3
#define STATUS_FD 4
#define CONFIG_MAX (16 << 20)

#ifndef SYS_close_range
#define SYS_close_range 436 // the same on every architecture (Linux 5.9)
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif
#ifndef ST_NOATIME
#define ST_NOATIME 1024
#endif
#ifndef ST_NODIRATIME
#define ST_NODIRATIME 2048
#endif
#ifndef ST_RELATIME
#define ST_RELATIME 4096
#endif
#ifndef ST_NOEXEC
#define ST_NOEXEC 8
#endif

struct bind {
	char *src, *target;
	int dir, writable;
};

struct pair {
	char *a, *b;
};

struct rlim {
	int res;
	unsigned long long value;
};

struct config {
	char *root, *dir;
	char **argv, **env;
	int nargv, nenv;
	struct pair *tmpfs; // target, mount options
	int ntmpfs;
	struct bind *binds;
	int nbinds;
	struct pair *symlinks; // link text, path
	int nsymlinks;
	struct pair *devices; // host node, target
	int ndevices;
	int loopback;
	int uid, gid;
	struct rlim *rlimits;
	int nrlimits;
	unsigned char *seccomp;
	size_t seccomp_len;
	int last_cap;
};

static char errbuf[4096];

// errtext is strerror(e) with a lowercase first letter, as Go prints errno.
static const char *errtext(int e) {
	static char buf[256];
	snprintf(buf, sizeof buf, "%s", strerror(e));
	buf[0] = (char)tolower((unsigned char)buf[0]);
	return buf;
}

// fail formats errbuf from a message and errno and returns -1.
static int fail(int e, const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(errbuf, sizeof errbuf, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if (e != 0 && (size_t)n < sizeof errbuf)
		snprintf(errbuf + n, sizeof errbuf - (size_t)n, ": %s", errtext(e));
	return -1;
}

static void write_all(int fd, const char *p, size_t n) {
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		p += w;
		n -= (size_t)w;
	}
}

// report writes one event line: {"event":E[,"error":M][,"code":C][,"signal":S]}.
static void report(const char *event, const char *msg, int has_code, int code, const char *sig) {
	static char line[16384];
	size_t n = 0;
	n += (size_t)snprintf(line + n, sizeof line - n, "{\"event\":\"%s\"", event);
	if (msg != NULL) {
		n += (size_t)snprintf(line + n, sizeof line - n, ",\"error\":\"");
		for (const unsigned char *p = (const unsigned char *)msg; *p != 0 && n < sizeof line - 16; p++) {
			if (*p == '"' || *p == '\\') {
				line[n++] = '\\';
				line[n++] = (char)*p;
			} else if (*p < 0x20) {
				n += (size_t)snprintf(line + n, sizeof line - n, "\\u%04x", *p);
			} else {
				line[n++] = (char)*p;
			}
		}
		line[n++] = '"';
	}
	if (has_code)
		n += (size_t)snprintf(line + n, sizeof line - n, ",\"code\":%d", code);
	if (sig != NULL)
		n += (size_t)snprintf(line + n, sizeof line - n, ",\"signal\":\"%s\"", sig);
	n += (size_t)snprintf(line + n, sizeof line - n, "}\n");
	write_all(STATUS_FD, line, n);
}

// Reading the configuration: records of a tag byte, a field count byte and
// that many fields, each a little-endian uint32 length and its bytes.

struct reader {
	const unsigned char *p, *end;
};

static int read_u32(struct reader *r, uint32_t *v) {
	if (r->end - r->p < 4)
		return -1;
	*v = (uint32_t)r->p[0] | (uint32_t)r->p[1] << 8 | (uint32_t)r->p[2] << 16 | (uint32_t)r->p[3] << 24;
	r->p += 4;
	return 0;
}

// read_field returns a NUL-terminated copy of the next field; binary says
// whether NUL bytes may occur in it.
static int read_field(struct reader *r, char **out, size_t *len, int binary) {
	uint32_t n;
	if (read_u32(r, &n) < 0 || (uint32_t)(r->end - r->p) < n)
		return -1;
	if (!binary && memchr(r->p, 0, n) != NULL)
		return -1;
	char *s = malloc((size_t)n + 1);
	if (s == NULL)
		return -1;
	memcpy(s, r->p, n);
	s[n] = 0;
	r->p += n;
	*out = s;
	if (len != NULL)
		*len = n;
	return 0;
}

static int grow(void **arr, int n, size_t size) {
	void *p = realloc(*arr, (size_t)(n + 1) * size);
	if (p == NULL)
		return -1;
	*arr = p;
	return 0;
}

static int parse_config(const unsigned char *data, size_t len, struct config *c) {
	struct reader r = {data, data + len};
	memset(c, 0, sizeof *c);
	c->last_cap = 63;
	while (r.p < r.end) {
		if (r.end - r.p < 2)
			return -1;
		unsigned char tag = r.p[0], nf = r.p[1];
		r.p += 2;
		char *f[4] = {0};
		size_t flen = 0;
		if (nf > 4)
			return -1;
		for (int i = 0; i < nf; i++)
			if (read_field(&r, &f[i], i == 0 ? &flen : NULL, tag == 's') < 0)
				return -1;
		switch (tag) {
		case 'r':
			c->root = f[0];
			break;
		case 'd':
			c->dir = f[0];
			break;
		case 'a':
			if (grow((void **)&c->argv, c->nargv + 1, sizeof(char *)) < 0)
				return -1;
			c->argv[c->nargv++] = f[0];
			c->argv[c->nargv] = NULL;
			break;
		case 'e':
			if (grow((void **)&c->env, c->nenv + 1, sizeof(char *)) < 0)
				return -1;
			c->env[c->nenv++] = f[0];
			c->env[c->nenv] = NULL;
			break;
		case 't':
			if (nf != 2 || grow((void **)&c->tmpfs, c->ntmpfs, sizeof(struct pair)) < 0)
				return -1;
			c->tmpfs[c->ntmpfs++] = (struct pair){f[0], f[1]};
			break;
		case 'b':
			if (nf != 4 || grow((void **)&c->binds, c->nbinds, sizeof(struct bind)) < 0)
				return -1;
			c->binds[c->nbinds++] = (struct bind){f[0], f[1], strcmp(f[2], "d") == 0, strcmp(f[3], "rw") == 0};
			break;
		case 'l':
			if (nf != 2 || grow((void **)&c->symlinks, c->nsymlinks, sizeof(struct pair)) < 0)
				return -1;
			c->symlinks[c->nsymlinks++] = (struct pair){f[0], f[1]};
			break;
		case 'v':
			if (nf != 2 || grow((void **)&c->devices, c->ndevices, sizeof(struct pair)) < 0)
				return -1;
			c->devices[c->ndevices++] = (struct pair){f[0], f[1]};
			break;
		case 'L':
			c->loopback = 1;
			break;
		case 'u':
			if (nf != 2)
				return -1;
			c->uid = atoi(f[0]);
			c->gid = atoi(f[1]);
			break;
		case 'R':
			if (nf != 2 || grow((void **)&c->rlimits, c->nrlimits, sizeof(struct rlim)) < 0)
				return -1;
			c->rlimits[c->nrlimits++] = (struct rlim){atoi(f[0]), strtoull(f[1], NULL, 10)};
			break;
		case 's':
			c->seccomp = (unsigned char *)f[0];
			c->seccomp_len = flen;
			break;
		case 'c':
			c->last_cap = atoi(f[0]);
			break;
		default:
			return -1;
		}
	}
	if (c->root == NULL || c->nargv == 0 || c->argv == NULL)
		return -1;
	if (c->env == NULL) {
		c->env = calloc(1, sizeof(char *));
		if (c->env == NULL)
			return -1;
	}
	return 0;
}

// mkdir_all is os.MkdirAll: every missing parent, an existing
// non-directory is ENOTDIR.
static int mkdir_all(const char *path, mode_t mode) {
	struct stat st;
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return 0;
		errno = ENOTDIR;
		return -1;
	}
	char buf[4096];
	size_t n = strlen(path);
	if (n == 0 || n >= sizeof buf) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, path, n + 1);
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = 0;
	char *slash = strrchr(buf, '/');
	if (slash != NULL && slash != buf) {
		*slash = 0;
		if (mkdir_all(buf, mode) < 0)
			return -1;
		*slash = '/';
	}
	if (mkdir(buf, mode) < 0) {
		int e = errno;
		if (stat(buf, &st) == 0 && S_ISDIR(st.st_mode))
			return 0;
		errno = e;
		return -1;
	}
	return 0;
}

static int mkdir_parent(const char *path) {
	char buf[4096];
	if (strlen(path) >= sizeof buf) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(buf, path);
	char *slash = strrchr(buf, '/');
	if (slash == NULL)
		return 0;
	if (slash == buf)
		return 0;
	*slash = 0;
	return mkdir_all(buf, 0755);
}

static int make_mountpoint(const char *target, int dir) {
	if (dir) {
		if (mkdir_all(target, 0755) < 0)
			return fail(errno, "creating mount point: mkdir %s", target);
		return 0;
	}
	if (mkdir_parent(target) < 0)
		return fail(errno, "creating mount point: mkdir %s", target);
	struct stat st;
	if (lstat(target, &st) == 0)
		return 0; // a file in a folder bound before (a masked one)
	int fd = open(target, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0)
		return fail(errno, "creating mount point: open %s", target);
	close(fd);
	return 0;
}

// remount_bind makes the bind mount at target nosuid and nodev, and
// read-only when ro, keeping the flags the kernel locks (in a user
// namespace, nosuid, nodev and noexec cannot be cleared).
static int remount_bind(const char *target, int ro) {
	struct statfs st;
	if (statfs(target, &st) < 0)
		return -1;
	unsigned long flags = MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV;
	if (ro)
		flags |= MS_RDONLY;
	if (st.f_flags & ST_NOEXEC)
		flags |= MS_NOEXEC;
	if (st.f_flags & ST_NOATIME)
		flags |= MS_NOATIME;
	if (st.f_flags & ST_NODIRATIME)
		flags |= MS_NODIRATIME;
	if (st.f_flags & ST_RELATIME)
		flags |= MS_RELATIME;
	return mount("", target, "", flags, "");
}

static char *join(const char *root, const char *rest) {
	static char buf[4096];
	snprintf(buf, sizeof buf, "%s%s", root, rest);
	return buf;
}

static int setup_dev(const char *root, const struct config *c) {
	char dev[4096];
	snprintf(dev, sizeof dev, "%s/dev", root);
	if (mkdir_all(dev, 0755) < 0)
		return fail(errno, "mkdir %s", dev);
	if (mount("tmpfs", dev, "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=1m") < 0)
		return fail(errno, "mounting /dev");
	for (int i = 0; i < c->ndevices; i++) {
		if (make_mountpoint(c->devices[i].b, 0) < 0)
			return -1;
		if (mount(c->devices[i].a, c->devices[i].b, "", MS_BIND, "") < 0)
			return fail(errno, "binding %s", c->devices[i].a);
	}
	char shm[4096];
	snprintf(shm, sizeof shm, "%s/shm", dev);
	if (mkdir(shm, 01777) < 0)
		return fail(errno, "mkdir %s", shm);
	if (mount("tmpfs", shm, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=1777,size=64m") < 0)
		return fail(errno, "mounting /dev/shm");
	static const char *links[][2] = {
		{"fd", "/proc/self/fd"}, {"stdin", "/proc/self/fd/0"}, {"stdout", "/proc/self/fd/1"}, {"stderr", "/proc/self/fd/2"}};
	for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) {
		char p[4096];
		snprintf(p, sizeof p, "%s/%s", dev, links[i][0]);
		if (symlink(links[i][1], p) < 0)
			return fail(errno, "symlink %s %s", links[i][1], p);
	}
	return 0;
}

static int pivot_into(const char *root) {
	char old[4096];
	snprintf(old, sizeof old, "%s/.oldroot", root);
	if (mkdir(old, 0700) < 0)
		return fail(errno, "mkdir %s", old);
	if (syscall(SYS_pivot_root, root, old) < 0)
		return fail(errno, "pivot_root");
	if (chdir("/") < 0)
		return fail(errno, "chdir /");
	if (umount2("/.oldroot", MNT_DETACH) < 0)
		return fail(errno, "detaching the old root");
	if (rmdir("/.oldroot") < 0)
		return fail(errno, "remove /.oldroot");
	if (remount_bind("/", 1) < 0)
		return fail(errno, "making the root read-only");
	return 0;
}

static int loopback_up(void) {
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail(errno, "bringing lo up");
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0) {
		int e = errno;
		close(fd);
		return fail(e, "bringing lo up");
	}
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0) {
		int e = errno;
		close(fd);
		return fail(e, "bringing lo up");
	}
	close(fd);
	return 0;
}

// setup_root builds the sandbox's root file system and pivots into it.
static int setup_root(const struct config *c) {
	const char *root = c->root;
	if (mount("", "/", "", MS_REC | MS_PRIVATE, "") < 0)
		return fail(errno, "making mounts private");
	if (mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=16m") < 0)
		return fail(errno, "mounting root tmpfs");
	// The writable directories come first, so that binds below them (a
	// command under /tmp) are not hidden.
	for (int i = 0; i < c->ntmpfs; i++) {
		const char *target = join(root, c->tmpfs[i].a);
		if (mkdir_all(target, 0755) < 0)
			return fail(errno, "mkdir %s", target);
		if (mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, c->tmpfs[i].b) < 0)
			return fail(errno, "mounting tmpfs on %s", c->tmpfs[i].a);
	}
	for (int i = 0; i < c->nbinds; i++) {
		const struct bind *b = &c->binds[i];
		char target[4096];
		snprintf(target, sizeof target, "%s%s", root, b->target);
		if (make_mountpoint(target, b->dir) < 0)
			return -1;
		if (mount(b->src, target, "", MS_BIND, "") < 0)
			return fail(errno, "binding %s", b->target);
		if (b->writable) {
			// nosuid and nodev: a set-id file or a device node in an
			// --expose-rw folder gives nothing inside.
			if (remount_bind(target, 0) < 0)
				return fail(errno, "binding %s nosuid", b->target);
			continue;
		}
		if (remount_bind(target, 1) < 0)
			return fail(errno, "binding %s read-only", b->target);
	}
	for (int i = 0; i < c->nsymlinks; i++) {
		char path[4096];
		snprintf(path, sizeof path, "%s%s", root, c->symlinks[i].b);
		if (mkdir_parent(path) < 0)
			return fail(errno, "mkdir %s", path);
		if (symlink(c->symlinks[i].a, path) < 0)
			return fail(errno, "creating symlink %s", c->symlinks[i].b);
	}
	if (setup_dev(root, c) < 0)
		return -1;
	char proc[4096];
	snprintf(proc, sizeof proc, "%s/proc", root);
	if (mkdir_all(proc, 0555) < 0)
		return fail(errno, "mkdir %s", proc);
	if (mount("proc", proc, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "") < 0)
		return fail(errno, "mounting /proc");
	if (pivot_into(root) < 0)
		return -1;
	(void)sethostname("mcpvet-sandbox", strlen("mcpvet-sandbox"));
	if (c->loopback && loopback_up() < 0)
		return -1;
	if (c->dir != NULL && c->dir[0] != 0 && chdir(c->dir) < 0)
		return fail(errno, "entering %s", c->dir);
	return 0;
}

// look_path is the sandbox's lookPath: a name with a slash as it is, else
// the first regular executable file of that name in PATH.
static int look_path(const struct config *c, char *out, size_t size) {
	const char *name = c->argv[0];
	if (strchr(name, '/') != NULL) {
		snprintf(out, size, "%s", name);
		return 0;
	}
	const char *path = "";
	for (int i = 0; i < c->nenv; i++)
		if (strncmp(c->env[i], "PATH=", 5) == 0) {
			path = c->env[i] + 5;
			break;
		}
	const char *p = path;
	for (;;) {
		const char *colon = strchr(p, ':');
		size_t n = colon != NULL ? (size_t)(colon - p) : strlen(p);
		char dir[4096];
		if (n == 0)
			snprintf(dir, sizeof dir, ".");
		else
			snprintf(dir, sizeof dir, "%.*s", (int)n, p);
		snprintf(out, size, "%s/%s", dir, name);
		struct stat st;
		if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111) != 0)
			return 0;
		if (colon == NULL)
			break;
		p = colon + 1;
	}
	return fail(0, "exec: \"%s\": executable file not found in $PATH", name);
}

static const char *rlimit_name(int res) {
	switch (res) {
	case RLIMIT_DATA:
		return "data";
	case RLIMIT_CPU:
		return "cpu";
	case RLIMIT_NPROC:
		return "nproc";
	}
	return "";
}

// confine_and_exec runs in the server's process, between fork and exec:
// no controlling terminal, no inherited descriptors, an empty capability
// bounding set, the run's uid, no capabilities, no_new_privs, the seccomp
// filter, the rlimits, then the exec. It returns only on failure, with
// errbuf set.
static void confine_and_exec(const struct config *c, const char *path) {
	if (c->dir != NULL && c->dir[0] != 0 && chdir(c->dir) < 0) {
		fail(errno, "fork/exec %s: chdir %s", path, c->dir);
		return;
	}
	// Only stdin, stdout and stderr cross the exec.
	if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) < 0) {
		for (int fd = 3; fd < 1024; fd++)
			(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	}
	for (int cap = 0; cap <= c->last_cap; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EINVAL) {
			fail(errno, "dropping capability %d from the bounding set", cap);
			return;
		}
	(void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (c->uid != 0) {
		if (syscall(SYS_setgroups, 0, NULL) < 0) {
			fail(errno, "setgroups");
			return;
		}
		if (syscall(SYS_setresgid, c->gid, c->gid, c->gid) < 0) {
			fail(errno, "setresgid");
			return;
		}
		if (syscall(SYS_setresuid, c->uid, c->uid, c->uid) < 0) {
			fail(errno, "setresuid");
			return;
		}
	}
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct data[2];
	memset(data, 0, sizeof data);
	if (syscall(SYS_capset, &hdr, data) < 0) {
		fail(errno, "clearing capabilities");
		return;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		fail(errno, "setting no_new_privs");
		return;
	}
	if (c->seccomp_len > 0) {
		struct sock_fprog prog = {(unsigned short)(c->seccomp_len / sizeof(struct sock_filter)), (struct sock_filter *)c->seccomp};
		// A kernel built without seccomp filters answers EINVAL or
		// ENOSYS: run without one (the read-back leaves "seccomp" out
		// of the mechanisms). Any other failure is a broken sandbox.
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0 && errno != EINVAL && errno != ENOSYS) {
			fail(errno, "loading seccomp filter");
			return;
		}
	}
	for (int i = 0; i < c->nrlimits; i++) {
		struct rlimit rl = {c->rlimits[i].value, c->rlimits[i].value};
		if (c->rlimits[i].res == RLIMIT_CPU)
			rl.rlim_max = rl.rlim_cur + 1; // SIGXCPU first, SIGKILL a second later
		if (setrlimit(c->rlimits[i].res, &rl) < 0) {
			fail(errno, "setting rlimit %s", rlimit_name(c->rlimits[i].res));
			return;
		}
	}
	execve(path, c->argv, c->env);
	fail(errno, "fork/exec %s", path);
}

static volatile sig_atomic_t server_started;
static volatile sig_atomic_t pending_signal;

// forward routes a termination signal to everything else in the namespace
// (kill(-1) from pid 1), or keeps it for when the server has started.
static void forward(int sig) {
	if (server_started)
		kill(-1, sig);
	else
		pending_signal = sig;
}

static const char *signal_name(int sig, char *buf, size_t size) {
	static const char *names[] = {
		[SIGHUP] = "SIGHUP", [SIGINT] = "SIGINT", [SIGQUIT] = "SIGQUIT", [SIGILL] = "SIGILL",
		[SIGTRAP] = "SIGTRAP", [SIGABRT] = "SIGABRT", [SIGBUS] = "SIGBUS", [SIGFPE] = "SIGFPE",
		[SIGKILL] = "SIGKILL", [SIGUSR1] = "SIGUSR1", [SIGSEGV] = "SIGSEGV", [SIGUSR2] = "SIGUSR2",
		[SIGPIPE] = "SIGPIPE", [SIGALRM] = "SIGALRM", [SIGTERM] = "SIGTERM", [SIGSTKFLT] = "SIGSTKFLT",
		[SIGCHLD] = "SIGCHLD", [SIGCONT] = "SIGCONT", [SIGSTOP] = "SIGSTOP", [SIGTSTP] = "SIGTSTP",
		[SIGTTIN] = "SIGTTIN", [SIGTTOU] = "SIGTTOU", [SIGURG] = "SIGURG", [SIGXCPU] = "SIGXCPU",
		[SIGXFSZ] = "SIGXFSZ", [SIGVTALRM] = "SIGVTALRM", [SIGPROF] = "SIGPROF", [SIGWINCH] = "SIGWINCH",
		[SIGIO] = "SIGIO", [SIGPWR] = "SIGPWR", [SIGSYS] = "SIGSYS",
	};
	if (sig > 0 && (size_t)sig < sizeof names / sizeof names[0] && names[sig] != NULL)
		return names[sig];
	snprintf(buf, size, "signal %d", sig);
	return buf;
}

static int run_helper(void) {
	(void)fcntl(STATUS_FD, F_SETFD, FD_CLOEXEC); // the server must not inherit it
	// Termination signals are kept from the start (pid 1 of a namespace
	// gets only the signals it handles) and reach the server once it runs.
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = forward;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	unsigned char *data = malloc(CONFIG_MAX);
	size_t len = 0;
	int readerr = 0;
	if (data == NULL)
		readerr = ENOMEM;
	while (data != NULL && len < CONFIG_MAX) {
		ssize_t n = read(CONFIG_FD, data + len, CONFIG_MAX - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			readerr = errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(CONFIG_FD);
	struct config c;
	if (readerr != 0 || parse_config(data, len, &c) < 0) {
		if (readerr != 0)
			fail(readerr, "reading sandbox configuration");
		else
			fail(0, "reading sandbox configuration: malformed");
		report("setup_error", errbuf, 0, 0, NULL);
		return 125;
	}
	if (setup_root(&c) < 0) {
		report("setup_error", errbuf, 0, 0, NULL);
		return 125;
	}

	char path[4096];
	if (look_path(&c, path, sizeof path) < 0) {
		report("spawn_error", errbuf, 0, 0, NULL);
		return 127;
	}
	int errpipe[2];
	if (pipe2(errpipe, O_CLOEXEC) < 0) {
		fail(errno, "pipe");
		report("spawn_error", errbuf, 0, 0, NULL);
		return 127;
	}
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	pid_t pid = fork();
	if (pid == 0) {
		struct sigaction dfl;
		memset(&dfl, 0, sizeof dfl);
		dfl.sa_handler = SIG_DFL;
		sigaction(SIGTERM, &dfl, NULL);
		sigaction(SIGINT, &dfl, NULL);
		sigaction(SIGHUP, &dfl, NULL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(errpipe[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		if (setsid() < 0)
			fail(errno, "fork/exec %s: setsid", path);
		else
			confine_and_exec(&c, path);
		write_all(errpipe[1], errbuf, strlen(errbuf));
		_exit(127);
	}
	int forkerr = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(errpipe[1]);
	if (pid < 0) {
		close(errpipe[0]);
		fail(forkerr, "fork/exec %s", path);
		report("spawn_error", errbuf, 0, 0, NULL);
		return 127;
	}
	char msg[4097];
	size_t m = 0;
	for (;;) {
		ssize_t n = read(errpipe[0], msg + m, sizeof msg - 1 - m);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		m += (size_t)n;
		if (m == sizeof msg - 1)
			break;
	}
	close(errpipe[0]);
	if (m > 0) {
		msg[m] = 0;
		int ws;
		while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
		}
		report("spawn_error", msg, 0, 0, NULL);
		return 127;
	}
	report("started", NULL, 0, 0, NULL);
	server_started = 1;
	if (pending_signal != 0)
		kill(-1, pending_signal);
	for (;;) {
		int ws;
		pid_t w = wait4(-1, &ws, 0, NULL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			fail(errno, "waiting for server: wait");
			report("setup_error", errbuf, 0, 0, NULL);
			return 125;
		}
		if (w != pid)
			continue; // a reaped orphan
		if (WIFSIGNALED(ws)) {
			char buf[32];
			int sig = WTERMSIG(ws);
			report("exit", NULL, 0, 0, signal_name(sig, buf, sizeof buf));
			return 128 + sig;
		}
		if (WIFEXITED(ws)) {
			int code = WEXITSTATUS(ws);
			report("exit", NULL, 1, code, NULL);
			return code;
		}
	}
}

// is_helper says whether this process was started as the init helper:
// MCPVET_SANDBOX_INIT=1 in the environment and argv[0] "mcpvet-sandbox-init"
// (read from /proc/self/cmdline: constructors get no argv under every libc).
static int is_helper(void) {
	const char *v = getenv(HELPER_ENV);
	if (v == NULL || strcmp(v, "1") != 0)
		return 0;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	char buf[64];
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	return strcmp(buf, HELPER_ARGV0) == 0;
}

__attribute__((constructor)) static void mcpvet_sandbox_init(void) {
	if (is_helper())
		_exit(run_helper());
}
